"""HTTPS with the official MCP Python SDK: mutual TLS, where a client certificate chooses the
principal (and one from another CA never gets an answer), and OAuth over HTTPS, where the SDK's
own OAuth client finds the issuer from the 401 and is served. Certificates are made here with
`cryptography`; the server runs with tls_cert_file / tls_key_file (/ tls_client_ca_file)."""
import asyncio
import datetime
import ipaddress
import ssl

import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from mcp import ClientSession
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from sdk import Memory, err, sc, serve_config
from test_oauth import CLIENT_ID, CLIENT_SECRET, Issuer, free_port


class Ca:
    """A test CA signing server and client certificates (EC P-256)."""

    def __init__(self, name):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        self.cert = self._build(self.name, self.key.public_key(), ca=True).sign(self.key, hashes.SHA256())

    def _build(self, subject, public_key, ca=False):
        now = datetime.datetime.now(datetime.timezone.utc)
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(self.name if not ca else subject)
                .public_key(public_key).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))

    def issue(self, path, stem, cn, server=False):
        """Writes STEM.pem and STEM.key under `path`; returns their paths."""
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Acme"),
                             x509.NameAttribute(NameOID.COMMON_NAME, cn)])
        b = self._build(subject, key.public_key())
        if server:
            b = b.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        b = b.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        cert = b.sign(self.key, hashes.SHA256())
        (path / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (path / f"{stem}.key").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        return str(path / f"{stem}.pem"), str(path / f"{stem}.key")

    def write(self, path, stem):
        (path / f"{stem}.pem").write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))
        return str(path / f"{stem}.pem")


def start(config, port):
    return serve_config(config, port, ready=r"listening on https://")


def https_demo(tmp_path, oauth_issuer, port):
    """The demo over HTTPS on `port` behind [oauth] for `oauth_issuer`, with a certificate of a
    CA of its own: (process, the CA's PEM path)."""
    servers = Ca("server CA")
    cert, key = servers.issue(tmp_path, "server", "sqlgate", server=True)
    url = f"https://127.0.0.1:{port}/mcp"
    config = tmp_path / "sqlgate.toml"
    config.write_text(f'demo = true\ntls_cert_file = "{cert}"\ntls_key_file = "{key}"\n'
                      f'[oauth]\nissuer = "{oauth_issuer}"\nresource = "{url}"\n')
    return start(config, port), servers.write(tmp_path, "servers")


def oauth_customers(url, issuer, client_id, secret, ca_pem):
    """The customers of the orders the SDK's OAuth client (given only `url` and its credentials
    at `issuer`) reads over HTTPS, trusting `ca_pem`."""
    provider = ClientCredentialsOAuthProvider(server_url=url, storage=Memory(), client_id=client_id,
                                              client_secret=secret, scope="sql:read", issuer=issuer)
    http = httpx2.AsyncClient(auth=provider, verify=tls_context(ca_pem))
    return asyncio.run(order_customers(url, http))


def tls_context(ca_pem, client=None):
    ctx = ssl.create_default_context(cafile=ca_pem)
    if client:
        ctx.load_cert_chain(*client)
    return ctx


async def order_customers(url, http):
    async with http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                r = await session.call_tool("run_query", {"sql": "SELECT customer_id FROM orders"})
                assert not err(r), sc(r)
                return {row["customer_id"] for row in sc(r)["rows"]}


def test_a_client_certificate_chooses_the_principal_and_an_untrusted_one_is_refused(tmp_path):
    servers, agents = Ca("server CA"), Ca("agents CA")
    cert, key = servers.issue(tmp_path, "server", "sqlgate", server=True)
    agents_pem = agents.write(tmp_path, "agents")
    servers_pem = servers.write(tmp_path, "servers")
    config = tmp_path / "sqlgate.toml"
    config.write_text(f'''demo = true
tls_cert_file = "{cert}"
tls_key_file = "{key}"
tls_client_ca_file = "{agents_pem}"

[[principals]]
name = "tenant-1"
client_cert = {{ cn = "agent-a" }}
vars = {{ tenant = 1 }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}

[[principals]]
name = "tenant-2"
client_cert = {{ subject = "CN=agent-b,O=Acme" }}
vars = {{ tenant = 2 }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}
''')
    port = free_port()
    proc = start(config, port)
    url = f"https://127.0.0.1:{port}/mcp"
    try:
        for cn, tenant in [("agent-a", 1), ("agent-b", 2)]:
            client = agents.issue(tmp_path, cn, cn)
            http = httpx2.AsyncClient(verify=tls_context(servers_pem, client))
            assert asyncio.run(order_customers(url, http)) == {tenant}
        rogue = Ca("agents CA").issue(tmp_path, "rogue", "agent-a")
        with pytest.raises(Exception):
            http = httpx2.AsyncClient(verify=tls_context(servers_pem, rogue))
            asyncio.run(order_customers(url, http))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_sdk_oauth_client_is_served_over_https(tmp_path):
    issuer = Issuer()
    port = free_port()
    url = f"https://127.0.0.1:{port}/mcp"
    proc, servers_pem = https_demo(tmp_path, issuer.url, port)
    try:
        assert len(oauth_customers(url, issuer.url, CLIENT_ID, CLIENT_SECRET, servers_pem)) > 1
        assert [r.get("resource") for r in issuer.token_requests] == [url]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_oidc_provider_tokens_over_https_with_the_sdk(tmp_path):
    """The real authorization server (oidc-provider, tests/oidc) and sqlgate over HTTPS: the
    SDK's OAuth client, given only the https URL, finds the provider from the 401 and is served
    with a token for that resource."""
    from oidc import SECRET, Provider, require_node, rsa_key
    require_node()
    port = free_port()
    url = f"https://127.0.0.1:{port}/mcp"
    jwk, _ = rsa_key("k1")
    provider = Provider(tmp_path, [jwk], [{"client_id": "report-agent", "client_secret": SECRET,
                                           "resource_scope": "sql:read"}], [url])
    proc = None
    try:
        proc, servers_pem = https_demo(tmp_path, provider.url, port)
        assert len(oauth_customers(url, provider.url, "report-agent", SECRET, servers_pem)) > 1
        assert [(g["client_id"], g["resource"]) for g in provider.issued()] == [("report-agent", url)]
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        provider.stop()
