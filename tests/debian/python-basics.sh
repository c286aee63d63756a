# Python 3: json, re, struct, hashlib, zlib, base64, tempfile, os.fork and wait, signal
# handlers, subprocess with pipes, the errors of a few calls.
python3 - <<'PY'
import base64, hashlib, json, os, re, signal, struct, subprocess, sys, tempfile, zlib

doc = {"name": "pecan", "list": [1, 2.5, None, True], "nested": {"b": "ü", "a": [{}]}}
text = json.dumps(doc, sort_keys=True)
print(text)
print(json.loads(text) == doc, json.dumps(doc, indent=1, ensure_ascii=False).count("\n"))
try:
    json.loads("{bad")
except json.JSONDecodeError as e:
    print("json error:", e.msg, e.pos)
print(re.findall(r"(\w+)=(\d+)", "a=1 bb=22 ccc=x d=4"))
print(re.sub(r"(?P<w>[aeiou])", r"<\g<w>>", "education"), re.split(r"[,;]\s*", "a, b;c"))
print(re.match(r"^(\d{4})-(\d\d)", "2026-11-27").groups(), bool(re.fullmatch(r"[a-z]+", "abC")))
packed = struct.pack("<IhQd4s", 0xDEADBEEF, -2, 2**40, 1.5, b"ab")
print(packed.hex(), struct.calcsize("<IhQd4s"), struct.unpack(">HH", b"\x01\x02\x03\x04"))
print(hashlib.sha256(b"pecan" * 1000).hexdigest())
print(hashlib.md5(b"").hexdigest(), hashlib.sha1(b"abc").hexdigest()[:16])
print(hashlib.blake2b(b"x", digest_size=8).hexdigest(), hashlib.sha3_256(b"").hexdigest()[:16])
blob = bytes(range(256)) * 100
z = zlib.compress(blob, 9)
print(len(blob), len(z), zlib.crc32(blob), zlib.adler32(blob), zlib.decompress(z) == blob)
print(base64.b64encode(b"\x00\xffpecan").decode(), base64.b32encode(b"ab").decode())
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "f")
    with open(p, "w") as f:
        f.write("temp\n" * 3)
    print("tempdir", os.path.isdir(d), os.path.getsize(p), sorted(os.listdir(d)))
with tempfile.NamedTemporaryFile("w+") as f:
    f.write("named"); f.flush(); f.seek(0); print("named tempfile:", f.read())
print("tempdir gone", not os.path.exists(d))
# fork and wait: each child exits with its index; the parent collects the statuses in order.
pids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        os._exit(i * 3)
    pids.append(pid)
print("children:", [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids])
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r); os.write(w, b"from child %d" % (os.getppid() == os.getpid()));  os._exit(0)
os.close(w); print(os.read(r, 100).decode()); os.close(r); os.waitpid(pid, 0)
pid = os.fork()
if pid == 0:
    signal.pause()
    os._exit(0)
os.kill(pid, signal.SIGTERM)
_, st = os.waitpid(pid, 0)
print("killed child:", os.WIFSIGNALED(st), os.WTERMSIG(st))
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
signal.signal(signal.SIGALRM, lambda s, f: got.append(s))
os.kill(os.getpid(), signal.SIGUSR1)
signal.raise_signal(signal.SIGALRM)
print("handled:", [signal.Signals(s).name for s in got])
old = signal.signal(signal.SIGINT, signal.SIG_IGN); print("SIGINT handler was", old)
p = subprocess.run(["sort", "-r"], input="b\na\nc\n", capture_output=True, text=True)
print("sort:", p.stdout.split(), p.returncode)
p1 = subprocess.Popen(["seq", "1", "1000"], stdout=subprocess.PIPE)
p2 = subprocess.Popen(["wc", "-l"], stdin=p1.stdout, stdout=subprocess.PIPE)
p1.stdout.close()
print("pipeline:", p2.communicate()[0].decode().strip(), p1.wait(), p2.wait())
p = subprocess.run("echo out; echo err >&2; exit 3", shell=True, capture_output=True)
print("shell:", p.stdout, p.stderr, p.returncode)
try:
    subprocess.run(["false"], check=True)
except subprocess.CalledProcessError as e:
    print("check:", e.returncode)
try:
    subprocess.run(["/nonexistent/prog"])
except FileNotFoundError as e:
    print("spawn error:", e.errno, e.strerror)
for call in (lambda: os.open("/nonexistent", os.O_RDONLY), lambda: os.rmdir("/"),
             lambda: os.read(999, 1), lambda: os.mkdir("/tmp")):
    try:
        call()
    except OSError as e:
        print("errno", e.errno, e.strerror)
print(sys.version_info[:2], sys.getfilesystemencoding(), os.cpu_count() >= 1)
PY
echo "python status=$?"
