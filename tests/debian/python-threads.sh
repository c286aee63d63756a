# Python 3 threads: threading with a lock and a condition, queue.Queue producers and
# consumers, concurrent.futures ThreadPoolExecutor, thread-local data, events, barriers.
# Results are sorted or summed: the order threads run in is not part of the output.
python3 - <<'PY'
import concurrent.futures, hashlib, queue, threading

counter = 0
lock = threading.Lock()
def add(n):
    global counter
    for _ in range(n):
        with lock:
            counter += 1
ts = [threading.Thread(target=add, args=(2000,)) for _ in range(6)]
for t in ts: t.start()
for t in ts: t.join()
print("counter", counter)

q = queue.Queue(maxsize=5)
results = queue.Queue()
def producer(base):
    for i in range(50):
        q.put(base + i)
def consumer():
    while True:
        item = q.get()
        if item is None:
            q.task_done()
            return
        results.put(item * item)
        q.task_done()
cons = [threading.Thread(target=consumer) for _ in range(3)]
prods = [threading.Thread(target=producer, args=(b,)) for b in (0, 1000)]
for t in cons + prods: t.start()
for t in prods: t.join()
for _ in cons: q.put(None)
q.join()
for t in cons: t.join()
items = sorted(results.get() for _ in range(results.qsize()))
print("queue", len(items), sum(items), items[:3])

def work(n):
    return n, hashlib.sha256(str(n).encode()).hexdigest()[:8], threading.current_thread() is not threading.main_thread()
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
    out = list(ex.map(work, range(10)))
    futs = [ex.submit(pow, 2, k) for k in range(8)]
    done = sorted(f.result() for f in concurrent.futures.as_completed(futs))
print("map", out[:3], all(w for _, _, w in out))
print("futures", done)
def boom():
    raise ValueError("inside")
with concurrent.futures.ThreadPoolExecutor(2) as ex:
    f = ex.submit(boom)
    print("exception", type(f.exception()).__name__, f.exception())

cond = threading.Condition()
ready = []
def waiter(i):
    with cond:
        cond.wait_for(lambda: ready)
        ready.append(i)
ws = [threading.Thread(target=waiter, args=(i,)) for i in range(4)]
for t in ws: t.start()
with cond:
    ready.append("go"); cond.notify_all()
for t in ws: t.join()
print("condition", ready[0], sorted(ready[1:]))

local = threading.local()
seen = []
def setlocal(v):
    local.v = v
    seen.append(local.v)
ls = [threading.Thread(target=setlocal, args=(v,)) for v in "abc"]
for t in ls: t.start()
for t in ls: t.join()
print("local", sorted(seen), hasattr(local, "v"))

barrier = threading.Barrier(3)
passed = []
def meet(i):
    barrier.wait()
    with lock:
        passed.append(i)
bs = [threading.Thread(target=meet, args=(i,)) for i in range(3)]
for t in bs: t.start()
for t in bs: t.join()
ev = threading.Event()
t = threading.Thread(target=ev.set); t.start(); print("event", ev.wait(30)); t.join()
print("barrier", sorted(passed), "threads left", threading.active_count())
sem = threading.BoundedSemaphore(2)
print("semaphore", sem.acquire(), sem.acquire(), sem.acquire(blocking=False))
PY
echo "python status=$?"
