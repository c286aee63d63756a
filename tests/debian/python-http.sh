# Python's sockets over lo (AF_INET, docs/linux/sockets.md): `python3 -m http.server` and
# urllib fetching from it, then a TCP and a UDP echo.  The server is awaited by polling its
# port with connect (no sleep); nothing printed depends on time, pids or ephemeral ports.
# On Linux this runs under pid 1 where nobody brought lo up: bring it up as init scripts do.
python3 - <<'PY'
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ifr = fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", b"lo", 0))     # SIOCGIFFLAGS
flags = struct.unpack("16sH22x", ifr)[1]
if not flags & 1:
    fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))  # SIOCSIFFLAGS IFF_UP
PY
mkdir -p /tmp/www && cd /tmp/www && printf 'hello from http.server\n' > hello.txt
python3 -m http.server --bind 127.0.0.1 8000 > /tmp/http.log 2>&1 &
server=$!
python3 - <<'PY'
import socket
for attempt in range(1000000):
    try:
        socket.create_connection(("127.0.0.1", 8000)).close()
        break
    except ConnectionRefusedError:
        pass
print("server is up")
PY
python3 - <<'PY'
import urllib.request, urllib.error
with urllib.request.urlopen("http://127.0.0.1:8000/hello.txt") as r:
    print(r.status, r.headers["Content-Type"], r.headers["Content-Length"])
    print(r.read().decode(), end="")
try:
    urllib.request.urlopen("http://127.0.0.1:8000/nosuch")
except urllib.error.HTTPError as e:
    print("nosuch:", e.code)
with urllib.request.urlopen("http://127.0.0.1:8000/") as r:
    print(r.status, "listing has hello.txt:", b"hello.txt" in r.read())
PY
kill $server; wait $server; echo "server ended by signal $(( $? - 128 ))"
python3 - <<'PY'
import socket, threading
srv = socket.create_server(("127.0.0.1", 0))
port = srv.getsockname()[1]
def echo():
    c, _ = srv.accept()
    while data := c.recv(100):
        c.sendall(data.upper())
    c.close()
t = threading.Thread(target=echo); t.start()
with socket.create_connection(("127.0.0.1", port)) as c:
    for word in (b"alpha", b"beta"):
        c.sendall(word); print("tcp", c.recv(100))
    c.shutdown(socket.SHUT_WR); print("tcp eof", c.recv(100))
t.join(); srv.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
v.sendto(b"ping", u.getsockname())
data, addr = u.recvfrom(100)
print("udp", data, addr == v.getsockname())
u.sendto(data.upper(), addr); print("udp", v.recvfrom(100)[0])
v.connect(("127.0.0.1", 9)); v.send(b"x")
try:
    v.send(b"x")
except ConnectionRefusedError:
    print("udp ECONNREFUSED on the next send")
PY
echo "python status=$?"
