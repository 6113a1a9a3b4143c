//! `sqlgate-mcp`: the command line entry point.

use clap::Parser;
use sqlgate_mcp::app::cli::{AuditCommand, Cli, Command};

/// mimalloc, as in pydantic-core and most napi-rs addons: a check allocates hundreds of small
/// nodes, and glibc's malloc and free were a quarter of its instructions.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = Cli::parse();
    // Logs (stderr) are set up once, here; the library only emits events.
    sqlgate_mcp::app::logging::init(cli.log_level, cli.log_format);
    // One-shot commands print to whoever reads them (`demo | head`): when the reader goes away,
    // stop as Unix tools do. `serve` keeps Rust's default (a write error, handled), so that a
    // client that closes its end never kills the server half-way through an audit record.
    if !matches!(cli.command, Command::Serve(_)) {
        sigpipe::reset();
    }
    let code = match cli.command {
        Command::Check(args) => sqlgate_mcp::app::check::run_check(&args),
        Command::Schema { which } => sqlgate_mcp::app::check::run_schema(which),
        Command::Demo => sqlgate_mcp::app::demo::run_demo(),
        Command::Init(args) => sqlgate_mcp::app::init::run_init(&args),
        Command::Serve(args) => sqlgate_mcp::app::serve::run_serve(&args),
        Command::Audit(AuditCommand::Verify { files }) => {
            sqlgate_mcp::app::verify::run_verify(&files)
        }
    };
    std::process::exit(code);
}
