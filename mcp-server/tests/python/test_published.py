"""Published parameterized queries and prompts with the official MCP Python SDK, over stdio
against a SQLite file of the test's own: each `[[queries]]` entry is listed as a read-only tool
with a typed input schema, a call returns run_query's structured result, a bad parameter type is
a structured `bad_request`, and SQL injection in a parameter value stays a value (no row, the
database unchanged)."""
import asyncio
import sqlite3

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sdk import BIN, attr, err, sc

CONFIG = """
database_url = "sqlite:{db}"

[[queries]]
name = "customers_in_country"
description = "Customers of one country, from an id on."
sql = "SELECT customer_id, first_name FROM customer WHERE country = :country AND customer_id >= :min_id ORDER BY customer_id"
max_rows = 10
[queries.params]
country = {{ type = "string", description = "Country name, e.g. Brazil" }}
min_id = {{ type = "integer", description = "The first customer id" }}

[[prompts]]
name = "country_report"
description = "Report on one country's customers"
text = "Summarise the customers of {{country}}."
arguments = [{{ name = "country", required = true }}]
"""


def make_db(path):
    with sqlite3.connect(path) as c:
        c.executescript(
            """
            CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, first_name TEXT, country TEXT);
            CREATE TABLE genre (genre_id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO customer VALUES (1, 'Luis', 'Brazil'), (2, 'Leonie', 'Germany'),
                (3, 'Francois', 'Canada'), (4, 'Bjorn', 'Norway'), (5, 'Eduardo', 'Brazil');
            INSERT INTO genre VALUES (1, 'Rock'), (2, 'Jazz');
            """
        )


def snapshot(path):
    with sqlite3.connect(path) as c:
        return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ["customer", "genre"]}


async def exercise(session, db):
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    t = tools["customers_in_country"]
    schema = attr(t, "input_schema", "inputSchema")
    assert schema["properties"]["country"]["type"] == "string"
    assert schema["properties"]["min_id"]["type"] == "integer"
    assert sorted(schema["required"]) == ["country", "min_id"]
    assert attr(t.annotations, "read_only_hint", "readOnlyHint") is True
    assert attr(t, "output_schema", "outputSchema") is not None

    r = await session.call_tool("customers_in_country", {"country": "Brazil", "min_id": 2})
    assert not err(r), sc(r)
    assert sc(r)["rows"] == [{"customer_id": 5, "first_name": "Eduardo"}]
    assert ":country" in sc(r)["executed_sql"] and "Brazil" not in sc(r)["executed_sql"]

    for args, name in [({"country": "Brazil", "min_id": "2"}, "min_id"),
                       ({"country": 7, "min_id": 2}, "country"),
                       ({"country": "Brazil"}, "min_id")]:
        r = await session.call_tool("customers_in_country", args)
        assert err(r)
        assert sc(r)["code"] == "bad_request" and name in sc(r)["message"], sc(r)

    before = snapshot(db)
    for attack in ["Brazil' OR '1'='1", "x'; DROP TABLE genre; --", "' UNION SELECT 1, name FROM genre --"]:
        r = await session.call_tool("customers_in_country", {"country": attack, "min_id": 0})
        assert not err(r), sc(r)
        assert sc(r)["rows"] == [], (attack, sc(r))
    assert snapshot(db) == before

    prompts = [p.name for p in (await session.list_prompts()).prompts]
    assert prompts == ["sqlgate_guide", "country_report"]
    p = await session.get_prompt("country_report", {"country": "Norway"})
    assert "Summarise the customers of Norway." in p.messages[0].content.text
    guide = await session.get_prompt("sqlgate_guide", {})
    assert "customers_in_country" in guide.messages[0].content.text


def test_published_queries_and_prompts(tmp_path):
    db = tmp_path / "shop.db"
    make_db(db)
    config = tmp_path / "sqlgate.toml"
    config.write_text(CONFIG.format(db=db))

    async def main():
        params = StdioServerParameters(command=BIN, args=["serve", "--config", str(config)])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, db)

    asyncio.run(main())
