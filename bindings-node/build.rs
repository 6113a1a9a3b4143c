//! Links the addon the way Node expects (napi-build).

fn main() {
    napi_build::setup();
}
