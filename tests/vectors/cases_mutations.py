"""Mutations (issue 13) -> mutations.jsonl: cases for `check_mutation`, allowed and refused.

Rows carry "entry": "mutation": every layer's runner checks them with the mutation entry point
(Rust `Guard::mutation_verdict`, Python `Guard.mutation_verdict`, Node `mutationVerdict`) and
compares `expect` exactly. Each refusal is tried in every clause where it can hide: SET values,
WHERE, FROM / USING, the SELECT of an INSERT, VALUES, ON CONFLICT, RETURNING, a MERGE source and
its WHEN clauses, a WITH in front.
"""

PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone", "*.ssn"]}}
WRITES = dict(PII, writes={"tables": ["orders", "order_lines", "customer"],
                           "classes": ["mutation_create", "mutation_delete"]})
CREATE_ONLY = dict(PII, writes={"tables": ["orders", "order_lines", "customer"]})
DELETE_ONLY = dict(PII, writes={"tables": ["orders"], "classes": ["mutation_delete"]})
UNBOUNDED = dict(PII, writes={"tables": ["orders"], "classes": ["mutation_create", "mutation_delete"],
                              "allow_unbounded": True})
SCHEMA = dict(PII, writes={"tables": ["sales.*"], "classes": ["mutation_create", "mutation_delete"]})
CATALOG = dict(WRITES, catalog={"tables": [
    {"name": "orders", "kind": "table", "columns": [{"name": "id"}, {"name": "status"}, {"name": "customer_id"}]},
    {"name": "customer", "kind": "table",
     "columns": [{"name": "id"}, {"name": "first_name"}, {"name": "email"}]},
    {"name": "order_lines", "kind": "view", "columns": [{"name": "order_id"}, {"name": "qty"}]},
    {"name": "product", "kind": "table", "columns": [{"name": "id"}, {"name": "price"}]},
]})


def cases(ok, no):
    rows = []

    def allowed(text, name, query_class="mutation_create", dialect="postgres", policy=WRITES, **check):
        row = no(text, "mutation: " + name, None, query_class, dialect=dialect, policy=policy, **check)
        row["check"]["allowed"] = True
        row["entry"] = "mutation"
        rows.append(row)

    def refused(text, name, code, query_class=None, dialect="postgres", policy=WRITES, **check):
        row = no(text, "mutation: " + name, code, query_class, dialect=dialect, policy=policy, **check)
        row["entry"] = "mutation"
        rows.append(row)

    # --- allowed, each form ------------------------------------------------------------------
    allowed("INSERT INTO orders (id, status) VALUES (101, 'new')", "insert values",
            target="orders", columns_written=["id", "status"], has_where=False)
    allowed("INSERT INTO orders (id, status) VALUES (101, 'new'), (102, 'new')", "insert two rows")
    allowed("INSERT INTO orders (id, status) SELECT id + 100, 'new' FROM product WHERE price > 3", "insert select",
            tables_read=["product"])
    allowed("INSERT INTO orders (id, status) VALUES (1, 'new') ON CONFLICT (id) DO NOTHING", "on conflict do nothing")
    allowed("INSERT INTO orders (id, status) VALUES (1, 'new') ON CONFLICT (id) DO UPDATE SET status = excluded.status",
            "on conflict do update")
    allowed("INSERT INTO orders AS o (id, status) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET status = o.status || excluded.status WHERE o.status <> 'closed'",
            "on conflict with alias and where")
    allowed("INSERT INTO orders (id) VALUES (101) RETURNING id", "insert returning")
    allowed("INSERT INTO orders (id, status) VALUES (101, upper('new'))", "insert calls allowed function",
            functions=["upper"])
    allowed("UPDATE orders SET status = 'cancelled' WHERE id = 7", "update where",
            sql="UPDATE orders SET status = 'cancelled' WHERE id = 7", target="orders",
            columns_written=["status"], has_where=True)
    allowed("update ORDERS set STATUS='x' where ID=7", "update regenerated", sql="UPDATE ORDERS SET STATUS = 'x' WHERE ID = 7",
            target="orders", columns_written=["status"])
    allowed("UPDATE orders o SET status = 'x' WHERE o.id = 7", "update with alias")
    allowed("UPDATE orders SET status = p.price::text FROM product p WHERE p.id = orders.id", "update from",
            tables_read=["product"])
    allowed("UPDATE orders SET (status, customer_id) = ('x', 3) WHERE id = 7", "update tuple",
            columns_written=["customer_id", "status"])
    allowed("UPDATE orders SET status = 'x' WHERE id IN (SELECT id FROM product WHERE price > 5) RETURNING id, status",
            "update returning with subquery")
    allowed("UPDATE customer SET first_name = 'Ann' WHERE id = 1", "update open column of protected table")
    allowed("DELETE FROM orders WHERE id = 7", "delete where", "mutation_delete", has_where=True, columns_written=[])
    allowed("DELETE FROM orders o USING product p WHERE o.id = p.id AND p.price = 0", "delete using", "mutation_delete",
            tables_read=["product"])
    allowed("DELETE FROM orders WHERE status = 'x' RETURNING id", "delete returning", "mutation_delete")
    allowed("MERGE INTO orders o USING product p ON o.id = p.id WHEN MATCHED THEN UPDATE SET status = 'x' "
            "WHEN NOT MATCHED THEN INSERT (id, status) VALUES (p.id, 'new')", "merge update insert",
            tables_read=["product"], has_where=True)
    allowed("MERGE INTO orders o USING product p ON o.id = p.id WHEN MATCHED THEN DELETE", "merge delete",
            "mutation_delete")
    allowed("WITH cheap AS (SELECT id FROM product WHERE price < 1) DELETE FROM orders WHERE id IN (SELECT id FROM cheap)",
            "with then delete", "mutation_delete")
    allowed("WITH n AS (SELECT 101 AS id) INSERT INTO orders (id) SELECT id FROM n", "with then insert")
    allowed("UPDATE sales.orders SET status = 'x' WHERE id = 1", "schema pattern", policy=SCHEMA, target="sales.orders")
    allowed("UPDATE orders SET status = 'x'", "unbounded allowed by policy", policy=UNBOUNDED, has_where=False)
    allowed("DELETE FROM orders WHERE true", "constant where allowed by policy", "mutation_delete", policy=UNBOUNDED,
            has_where=False)
    allowed("DELETE FROM orders WHERE id = 1", "delete only policy", "mutation_delete", policy=DELETE_ONLY)
    allowed("INSERT INTO orders VALUES (1, 'new', 3)", "insert without column list, catalog names them",
            policy=CATALOG, columns_written=["customer_id", "id", "status"])
    allowed("UPDATE customer SET first_name = 'x' WHERE id = 1", "catalog: open column", policy=CATALOG)
    # other dialects
    allowed("INSERT INTO orders (id, status) VALUES (101, 'new')", "sqlite insert", dialect="sqlite")
    allowed("INSERT OR IGNORE INTO orders (id, status) VALUES (1, 'new')", "sqlite insert or ignore", dialect="sqlite")
    allowed("UPDATE orders SET status = 'x' WHERE id = 7 RETURNING id", "sqlite update returning", dialect="sqlite")
    allowed("DELETE FROM orders WHERE id = 7", "sqlite delete", "mutation_delete", dialect="sqlite")
    allowed("INSERT INTO orders (id, status) VALUES (1, 'n') ON CONFLICT (id) DO UPDATE SET status = excluded.status",
            "sqlite upsert", dialect="sqlite")
    allowed("INSERT INTO orders (id, status) VALUES (101, 'n')", "mysql insert", dialect="mysql")
    allowed("INSERT INTO orders (id, status) VALUES (1, 'n') ON DUPLICATE KEY UPDATE status = 'n2'",
            "mysql on duplicate key", dialect="mysql")
    allowed("UPDATE orders SET status = 'x' WHERE id = 7 ORDER BY id LIMIT 1", "mysql update limit", dialect="mysql")
    allowed("DELETE FROM orders WHERE id = 7 LIMIT 1", "mysql delete limit", "mutation_delete", dialect="mysql")
    allowed("INSERT INTO orders SET id = 101, status = 'n'", "mysql insert set", dialect="mysql",
            columns_written=["id", "status"])
    allowed("UPDATE orders SET status = 'x' WHERE id = 7", "duckdb update", dialect="duckdb")
    allowed("INSERT INTO orders (id, status) SELECT id + 100, 'n' FROM product", "duckdb insert select", dialect="duckdb")
    allowed("UPDATE orders SET status = 'x' WHERE id = 7", "mssql update", dialect="mssql")
    allowed("DELETE FROM orders WHERE id = 7", "mssql delete", "mutation_delete", dialect="mssql")
    allowed("UPDATE orders SET status = p.name FROM product p WHERE p.id = orders.id", "snowflake update from",
            dialect="snowflake")
    allowed("MERGE INTO orders o USING product p ON o.id = p.id WHEN MATCHED THEN UPDATE SET o.status = 'x'",
            "snowflake merge", dialect="snowflake")

    # --- unbounded ---------------------------------------------------------------------------
    for dialect in ["postgres", "sqlite", "mysql", "duckdb", "mssql"]:
        refused("UPDATE orders SET status = 'x'", f"{dialect}: update without where", "unbounded_mutation",
                "mutation_create", dialect=dialect)
        refused("DELETE FROM orders", f"{dialect}: delete without where", "unbounded_mutation", "mutation_delete",
                dialect=dialect)
    for cond in ["true", "1 = 1", "NOT false", "'a' = 'a'", "EXISTS (SELECT 1)", "(SELECT count(*) FROM product) > 0"]:
        refused(f"DELETE FROM orders WHERE {cond}", f"where names no column: {cond}", "unbounded_mutation",
                "mutation_delete")
    refused("UPDATE orders SET status = 'x' FROM product p", "update from without where", "unbounded_mutation")
    refused("DELETE FROM orders USING product", "delete using without where", "unbounded_mutation")

    # --- targets -----------------------------------------------------------------------------
    refused("UPDATE artist SET name = 'x' WHERE id = 1", "update target outside writes", "table_not_writable",
            "mutation_create")
    refused("INSERT INTO artist (name) VALUES ('x')", "insert target outside writes", "table_not_writable")
    refused("DELETE FROM artist WHERE id = 1", "delete target outside writes", "table_not_writable", "mutation_delete")
    refused("MERGE INTO artist a USING orders o ON a.id = o.id WHEN MATCHED THEN DELETE", "merge target outside writes",
            "table_not_writable")
    refused("UPDATE other.orders SET status = 'x' WHERE id = 1", "other schema outside schema pattern",
            "table_not_writable", policy=SCHEMA)
    refused("UPDATE archive.orders SET status = 'x' WHERE id = 1", "same name in another schema",
            "table_not_writable")
    allowed("UPDATE public.orders SET status = 'x' WHERE id = 1", "default schema named", target="public.orders")
    refused("UPDATE shop.orders SET status = 'x' WHERE id = 1", "mysql: another database", "table_not_writable",
            dialect="mysql")
    refused("UPDATE orderz SET status = 'x' WHERE id = 1", "close name gets a hint", "table_not_writable",
            hint="did you mean `orders`? Mutations may modify only: orders, order_lines, customer")
    refused("UPDATE orders SET status = 'x' WHERE id = 1", "no writes section", "table_not_writable", policy=PII)
    refused("INSERT INTO orders (id) VALUES (1)", "no writes section, insert", "table_not_writable", policy=PII)
    refused("UPDATE employee SET name = 'x' WHERE id = 1", "denied table as target", "table_not_allowed",
            policy=dict(WRITES, writes={"tables": ["*"], "classes": ["mutation_create"]}))
    refused("UPDATE pg_catalog.pg_authid SET rolsuper = true WHERE rolname = 'app'", "system catalog as target",
            "system_catalog", policy=dict(WRITES, writes={"tables": ["*"], "classes": ["mutation_create"]}))
    refused("UPDATE pg_catalog.pg_authid SET rolsuper = true WHERE rolname = 'app'",
            "system catalog as target even when reads may see catalogs", "system_catalog",
            policy=dict(WRITES, allow_system_catalogs=True,
                        writes={"tables": ["*", "pg_catalog.*"], "classes": ["mutation_create"]}))
    refused("DELETE FROM sqlite_master WHERE name = 'x'", "sqlite_master as target", "system_catalog",
            dialect="sqlite", policy=dict(WRITES, writes={"tables": ["*"], "classes": ["mutation_delete"]}))
    refused("UPDATE order_lines SET qty = 0 WHERE order_id = 1", "view as target", "table_not_writable",
            policy=CATALOG)
    refused("UPDATE ordres SET status = 'x' WHERE id = 1", "catalog: unknown target", "unknown_table",
            policy=CATALOG)
    refused("INSERT INTO 'file.csv' VALUES (1)", "file path as target", None, dialect="duckdb")
    refused("UPDATE orders JOIN product p ON p.id = orders.id SET status = 'x' WHERE p.price = 0",
            "mysql multi-table update", "unsupported_syntax", dialect="mysql")
    refused("DELETE orders FROM orders JOIN product p ON p.id = orders.id WHERE p.price = 0",
            "mysql multi-table delete", "unsupported_syntax", "mutation_delete", dialect="mysql")
    refused("INSERT OVERWRITE TABLE orders SELECT * FROM product", "hive insert overwrite", None, dialect="hive")

    # SQL Server updates the table behind a FROM alias that takes the target's name.
    refused("UPDATE orders SET status = 'x' FROM product AS orders WHERE orders.id = 1",
            "mssql: a from item takes the target's name", "unsupported_syntax", dialect="mssql")
    refused("DELETE FROM orders o USING product AS o WHERE o.id = 1", "using item takes the target's alias",
            "unsupported_syntax", "mutation_delete")

    # --- classes -----------------------------------------------------------------------------
    refused("DELETE FROM orders WHERE id = 1", "delete under create-only policy", "statement_not_allowed",
            "mutation_delete", policy=CREATE_ONLY)
    refused("MERGE INTO orders o USING product p ON o.id = p.id WHEN MATCHED THEN DELETE",
            "merge delete under create-only policy", "statement_not_allowed", "mutation_delete", policy=CREATE_ONLY)
    refused("UPDATE orders SET status = 'x' WHERE id = 1", "update under delete-only policy", "statement_not_allowed",
            "mutation_create", policy=DELETE_ONLY)
    refused("TRUNCATE orders", "truncate", "statement_not_allowed", "mutation_delete")
    refused("TRUNCATE TABLE orders", "sqlite-style truncate in mysql", "statement_not_allowed", dialect="mysql")
    refused("DROP TABLE orders", "drop", "statement_not_allowed", "ddl")
    refused("ALTER TABLE orders ADD COLUMN x int", "alter", "statement_not_allowed", "ddl")
    refused("GRANT ALL ON orders TO public", "grant", "statement_not_allowed", "admin")
    refused("SET session_replication_role = replica", "set", "statement_not_allowed", "session")
    refused("COPY orders FROM '/tmp/x.csv'", "copy from", "statement_not_allowed", "mutation_create")
    refused("SELECT * FROM orders", "a read sent as a mutation", "statement_not_allowed", "select",
            hint="this is a read: send it as a query, not as a mutation")
    refused("EXPLAIN ANALYZE DELETE FROM orders WHERE id = 1", "explain analyze", None)
    refused("UPDATE orders SET status = 'x' WHERE id = 1; DELETE FROM orders WHERE id = 2", "two mutations",
            "multiple_statements", "mutation_delete")
    refused("UPDATE orders SET status = 'x' WHERE id = 1; DROP TABLE orders", "mutation then drop",
            "multiple_statements", "ddl")
    refused("BEGIN; UPDATE orders SET status = 'x' WHERE id = 1; COMMIT", "transaction around it",
            "multiple_statements")
    # REPLACE deletes the conflicting row (and resets every column it does not list).
    refused("REPLACE INTO orders (id, status) VALUES (1, 'x')", "mysql replace deletes", "statement_not_allowed",
            "mutation_delete", dialect="mysql", policy=CREATE_ONLY)
    refused("INSERT OR REPLACE INTO orders (id, status) VALUES (1, 'x')", "sqlite insert or replace deletes",
            "statement_not_allowed", "mutation_delete", dialect="sqlite", policy=CREATE_ONLY)
    refused("UPDATE OR REPLACE orders SET id = 2 WHERE id = 1", "sqlite update or replace deletes",
            "statement_not_allowed", "mutation_delete", dialect="sqlite", policy=CREATE_ONLY)
    refused("REPLACE INTO customer (id, first_name) VALUES (1, 'x')", "replace resets protected columns",
            "column_not_allowed", "mutation_delete", dialect="mysql", policy=dict(WRITES, columns={"deny": ["customer.email"]}))
    allowed("REPLACE INTO orders (id, status) VALUES (1, 'x')", "mysql replace", "mutation_delete", dialect="mysql",
            policy=dict(WRITES, columns={"deny": ["customer.email"]}), columns_written=["*"])

    # --- a second data-modifying statement, wherever it hides ------------------------------------
    refused("WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING *) INSERT INTO orders (id) SELECT id FROM d",
            "delete cte in front of insert", "data_modifying_cte", "mutation_delete")
    refused("WITH u AS (UPDATE customer SET first_name = 'x' WHERE id = 1 RETURNING id) DELETE FROM orders WHERE id IN (SELECT id FROM u)",
            "update cte in front of delete", "data_modifying_cte")
    refused("INSERT INTO orders (id) SELECT id FROM (WITH d AS (DELETE FROM product WHERE id = 1 RETURNING id) SELECT id FROM d) s",
            "cte in insert source", "data_modifying_cte")
    refused("UPDATE orders SET status = 'x' WHERE id IN (WITH d AS (DELETE FROM product WHERE id = 1 RETURNING id) SELECT id FROM d)",
            "cte in update where", "data_modifying_cte")
    refused("DELETE FROM orders USING (WITH d AS (DELETE FROM product WHERE id = 1 RETURNING id) SELECT id FROM d) s WHERE orders.id = s.id",
            "cte in delete using", "data_modifying_cte")

    # --- protected columns written ---------------------------------------------------------------
    refused("UPDATE customer SET email = 'x' WHERE id = 1", "set protected column", "column_not_allowed")
    refused("UPDATE customer SET (first_name, email) = ('a', 'b') WHERE id = 1", "tuple sets protected column",
            "column_not_allowed")
    refused("INSERT INTO customer (id, email) VALUES (1, 'x')", "insert protected column", "column_not_allowed")
    refused("INSERT INTO customer VALUES (1, 'a', 'b')", "insert without column list", "column_not_allowed")
    refused("INSERT INTO customer (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET email = excluded.email",
            "on conflict updates protected column", "column_not_allowed")
    refused("INSERT INTO customer (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET first_name = excluded.email",
            "on conflict reads protected excluded column", "column_not_allowed")
    refused("INSERT INTO customer (id) VALUES (1) ON CONFLICT (email) DO NOTHING",
            "protected column as conflict target", "column_not_allowed")
    refused("INSERT INTO customer (id) VALUES (1) ON DUPLICATE KEY UPDATE phone = 'x'",
            "mysql on duplicate key updates protected column", "column_not_allowed", dialect="mysql")
    refused("UPDATE orders SET ssn = 'x' WHERE id = 1", "wildcard-protected column", "column_not_allowed")
    refused("UPDATE customer c SET c.email = 'x' WHERE c.id = 1", "qualified protected column", "column_not_allowed",
            dialect="mysql")
    refused("MERGE INTO customer c USING orders o ON c.id = o.customer_id WHEN MATCHED THEN UPDATE SET email = 'x'",
            "merge sets protected column", "column_not_allowed")
    refused("MERGE INTO customer c USING orders o ON c.id = o.customer_id WHEN NOT MATCHED THEN INSERT (id, phone) VALUES (o.customer_id, 'x')",
            "merge inserts protected column", "column_not_allowed")
    refused("INSERT INTO orders (id, nope) VALUES (1, 2)", "catalog: unknown written column", "unknown_column",
            policy=CATALOG)
    refused("UPDATE orders SET statu = 'x' WHERE id = 1", "catalog: unknown set column", "unknown_column",
            policy=CATALOG, hint="did you mean `status`?")

    # --- protected columns and denied tables read, clause by clause -----------------------------
    refused("UPDATE customer SET first_name = email WHERE id = 1", "set value reads protected column",
            "column_not_allowed")
    refused("UPDATE customer SET first_name = 'x' WHERE email = 'a@b'", "where reads protected column",
            "column_not_allowed")
    refused("UPDATE orders SET status = 'x' WHERE customer_id IN (SELECT id FROM customer WHERE email LIKE 'a%')",
            "where subquery reads protected column", "column_not_allowed")
    refused("UPDATE orders SET status = c.email FROM customer c WHERE c.id = orders.customer_id",
            "update from reads protected column", "column_not_allowed")
    refused("DELETE FROM orders o USING customer c WHERE o.customer_id = c.id AND c.phone = '1'",
            "delete using reads protected column", "column_not_allowed", "mutation_delete")
    refused("INSERT INTO orders (id, status) SELECT id, email FROM customer", "insert select reads protected column",
            "column_not_allowed")
    refused("INSERT INTO orders (id, status) VALUES (1, (SELECT email FROM customer LIMIT 1))",
            "values subquery reads protected column", "column_not_allowed")
    refused("UPDATE customer SET first_name = 'x' WHERE id = 1 RETURNING *", "returning star", "star_on_restricted_table")
    refused("UPDATE customer SET first_name = 'x' WHERE id = 1 RETURNING email", "returning protected column",
            "column_not_allowed")
    refused("DELETE FROM orders WHERE id = 1 RETURNING (SELECT phone FROM customer LIMIT 1)",
            "returning subquery reads protected column", "column_not_allowed", "mutation_delete")
    refused("UPDATE customer SET first_name = 'x' WHERE id = 1 RETURNING customer", "returning whole row",
            "column_not_allowed")
    refused("MERGE INTO orders o USING customer c ON o.customer_id = c.id WHEN MATCHED AND c.email = '' THEN DELETE",
            "merge when reads protected column", "column_not_allowed")
    refused("MERGE INTO orders o USING (SELECT id, email FROM customer) c ON o.customer_id = c.id WHEN MATCHED THEN DELETE",
            "merge source reads protected column", "column_not_allowed")
    refused("UPDATE orders SET status = 'x' FROM employee e WHERE e.id = orders.id", "update from denied table",
            "table_not_allowed")
    refused("DELETE FROM orders WHERE id IN (SELECT id FROM employee)", "delete where reads denied table",
            "table_not_allowed", "mutation_delete")
    refused("INSERT INTO orders (id) SELECT id FROM employee", "insert select reads denied table", "table_not_allowed")
    refused("MERGE INTO orders o USING employee e ON o.id = e.id WHEN MATCHED THEN DELETE", "merge from denied table",
            "table_not_allowed")
    refused("INSERT INTO orders (id, status) SELECT oid, rolname FROM pg_authid", "insert select from catalog",
            "system_catalog")
    refused("UPDATE orders SET status = 'x' WHERE id IN (SELECT 1 FROM information_schema.tables)",
            "where reads information_schema", "system_catalog")
    refused("UPDATE customer SET first_name = 'x' WHERE id = 1 RETURNING customer.*", "returning qualified star",
            "star_on_restricted_table")

    # --- functions, clause by clause -------------------------------------------------------------
    refused("UPDATE orders SET status = pg_read_file('/etc/passwd') WHERE id = 1", "function in set",
            "function_not_allowed")
    refused("UPDATE orders SET status = 'x' WHERE id = 1 AND pg_sleep(5) IS NOT NULL", "function in where",
            "function_not_allowed")
    refused("INSERT INTO orders (id, status) VALUES (nextval('orders_id_seq'), 'x')", "function in values",
            "function_not_allowed")
    refused("INSERT INTO orders (id) SELECT id FROM dblink('host=evil', 'SELECT 1') AS t(id int)",
            "function in insert source", "function_not_allowed")
    refused("DELETE FROM orders WHERE id = 1 RETURNING pg_read_file('/etc/passwd')", "function in returning",
            "function_not_allowed", "mutation_delete")
    refused("INSERT INTO orders (id, status) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET status = current_setting('data_directory')",
            "function in on conflict update", "function_not_allowed")
    refused("INSERT INTO orders (id, status) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET status = 'y' WHERE pg_sleep(1) IS NULL",
            "function in on conflict where", "function_not_allowed")
    refused("MERGE INTO orders o USING product p ON o.id = p.id WHEN MATCHED THEN UPDATE SET status = pg_read_file('x')",
            "function in merge update", "function_not_allowed")
    refused("UPDATE orders SET status = load_extension('x') WHERE id = 1", "sqlite load_extension", "function_not_allowed",
            dialect="sqlite")
    refused("UPDATE orders SET status = LOAD_FILE('/etc/passwd') WHERE id = 1", "mysql load_file", "function_not_allowed",
            dialect="mysql")
    refused("UPDATE orders SET status = 'x' WHERE id = 1 AND SLEEP(5) = 0", "mysql sleep in where",
            "function_not_allowed", dialect="mysql")
    refused("INSERT INTO orders (id, status) SELECT 1, content FROM read_text('/etc/passwd')", "duckdb file reader",
            "function_not_allowed", dialect="duckdb")

    # --- other clauses the guard does not model ---------------------------------------------------
    refused("UPDATE orders SET status = 'x' OUTPUT inserted.status WHERE id = 1", "mssql output", None, dialect="mssql")
    refused("UPDATE orders SET status = 'x' WHERE id IN (SELECT id FROM product FOR UPDATE)", "locking subquery",
            "locking_clause")
    refused("INSERT INTO orders (id) SELECT id INTO backup FROM product", "select into in insert source", None)
    refused("UPDATE orders SET status = 'x' WHERE id = 1 /*! , status = 'y' */", "mysql executable comment", None,
            dialect="mysql")
    return {"mutations.jsonl": rows}
