# Python's sqlite3 on a file: a schema, transactions committed and rolled back, a second
# connection, aggregate queries, an integrity check.
python3 - <<'PY'
import os, sqlite3
db = sqlite3.connect("data.db")
db.execute("create table kv (k text primary key, v integer not null)")
with db:
    db.executemany("insert into kv values (?, ?)", [(f"key{i:03}", i * i) for i in range(200)])
try:
    with db:
        db.execute("insert into kv values ('new', 1)")
        db.execute("insert into kv values ('key001', 2)")
except sqlite3.IntegrityError as e:
    print("rolled back:", e)
print("rows", db.execute("select count(*), sum(v) from kv").fetchone())
db.execute("begin"); db.execute("delete from kv where v % 2 = 0"); db.rollback()
print("after rollback", db.execute("select count(*) from kv").fetchone()[0])
other = sqlite3.connect("data.db")
print("other sees", other.execute("select max(v), min(k) from kv").fetchone())
db.execute("update kv set v = -v where k like 'key00%'"); db.commit()
print("other after commit", other.execute("select sum(v) from kv where v < 0").fetchone())
other.close()
db.execute("create index kv_v on kv(v)")
print(db.execute("select k from kv where v between 100 and 200 order by v").fetchall())
print(db.execute("pragma integrity_check").fetchone(), db.execute("pragma journal_mode").fetchone())
db.execute("pragma journal_mode=wal")
with db:
    db.execute("insert into kv values ('wal', 7)")
print("wal", db.execute("select v from kv where k = 'wal'").fetchone(), sqlite3.sqlite_version_info >= (3, 0))
db.close()
print("files", sorted(f for f in os.listdir(".") if f.startswith("data.db")), os.path.getsize("data.db") % 4096)
PY
echo "python status=$?"
