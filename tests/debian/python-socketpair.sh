# Python's sockets, socketpair only (AF_UNIX, SOCK_STREAM): a round trip between threads and
# across a fork.  An expected difference until lx's socket layer lands (known_differences.py).
python3 - <<'PY'
import os, socket, threading
a, b = socket.socketpair()
print(a.family.name, a.type.name)
def echo():
    while data := b.recv(100):
        b.sendall(data.upper())
    b.close()
t = threading.Thread(target=echo); t.start()
for word in (b"alpha", b"beta"):
    a.sendall(word); print(a.recv(100))
a.shutdown(socket.SHUT_WR); print("eof", a.recv(100)); t.join(); a.close()
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close(); b.sendall(b"from child"); b.close(); os._exit(0)
b.close(); print(a.recv(100), os.waitpid(pid, 0)[1])
PY
echo "python status=$?"
