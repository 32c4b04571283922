# A program for the recorder (tests/host/test_trace.sh, tests/traces/python-threads.trace):
# a producer thread makes byte strings of varied sizes, a consumer thread checks and drops
# them, so their memory is freed on another thread than the one that allocated it.
import queue
import threading

q = queue.Queue(32)


def producer():
    for i in range(400):
        q.put(bytes([i % 251]) * (40 + (i * 37) % 2000))
    q.put(None)


def consumer():
    n = 0
    while True:
        b = q.get()
        if b is None:
            break
        assert b == bytes([n % 251]) * len(b)
        n += 1
    assert n == 400


threads = [threading.Thread(target=producer), threading.Thread(target=consumer)]
for t in threads:
    t.start()
for t in threads:
    t.join()
