# The sqlite3 command-line shell on a file: schema, transactions, modes, imports, errors.
sqlite3 shop.db <<'SQL'
create table item (id integer primary key, name text unique, price real, qty int);
begin;
insert into item (name, price, qty) values ('apple', 0.5, 100), ('pear', 0.75, 40), ('fig', 2.25, 7);
commit;
begin;
insert into item (name, price, qty) values ('plum', 1.0, 1);
rollback;
.headers on
.mode column
select * from item order by id;
.mode csv
select name, price * qty as total from item order by total desc;
.mode list
.separator |
select count(*), round(sum(price * qty), 2), max(name) from item;
.schema item
SQL
echo "sqlite3=$?"
printf 'kiwi,1.5,3\nlime,0.25,50\n' > more.csv
sqlite3 shop.db "create table staging(name, price, qty);" ".mode csv" ".import more.csv staging" \
    "insert into item (name, price, qty) select * from staging;" "select count(*) from item;"
sqlite3 shop.db "insert into item (name) values ('apple');" 2>&1; echo "duplicate=$?"
sqlite3 shop.db "select nosuchcolumn from item;" 2>&1; echo "bad column=$?"
sqlite3 -json shop.db "select name, qty from item where qty > 10 order by name;"
sqlite3 shop.db "pragma integrity_check; pragma page_size; select group_concat(name, ',') from (select name from item order by name);"
sqlite3 shop.db .dump | grep -c INSERT
sqlite3 :memory: "with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000) select sum(x), count(*) from c;"
