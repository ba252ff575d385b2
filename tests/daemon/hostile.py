#!/usr/bin/env python3
"""Raw-socket clients for tests/test_daemon_hostile.sh: what curl will not
do (trickle bytes, send conflicting headers, stop in the middle of a body)
and small servers that pose as a daemon.  Every operation is bounded in
time.  Addresses: unix:/path or host:port.

  raw ADDR                      send stdin as is; print the answer
  trickle ADDR SRC N SECONDS    N connections from source address SRC, each
                                sending a request head one byte per 0.5 s;
                                print "accepted A closed C" after SECONDS
  partial ADDR TOKEN PATH CL K  send the head of a POST with Content-Length
                                CL and K body bytes, then read /metrics on
                                a second connection: print the upload bytes
                                in use, then close both
  plant PATH SECONDS            listen on the unix socket PATH (mode 0777)
                                for SECONDS; print "connections N bytes B"
  fake PATH RESULT SECONDS      a daemon on PATH that accepts any job and
                                answers every result request with the JSON
                                file RESULT (read anew for each request)
  race ADDR ROUNDS N BODY...    per round, N connections POST /v1/jobs with
                                one fresh request id (BODY's "@RID@"), the
                                i-th sending BODY[i % len]; each sends all
                                but its last byte, then all send that byte
                                at once.  Checks that one job was made, that
                                every submit of its content attached to it
                                and every other got 409 request_id_reused;
                                prints "ok" or the first round that did not
  burst ADDR TOKEN SOURCES PER   SOURCES x PER authorised clients at once,
                                PER from each of SOURCES source addresses:
                                print "served S of N" (answered 200)
  stall ADDR TOKEN PATH CL SECONDS
                                POST PATH with Content-Length CL (an
                                upload), then trickle a body byte every
                                0.5 s; print "closed after T s" when the
                                daemon closes it, or "open" after SECONDS
  early ADDR TOKEN PATH CL MODE a POST refused from its headers: MODE wait
                                sends the head and waits for the answer
                                before sending any body; MODE send sends
                                the whole body of CL bytes at once, then
                                reads.  Prints the status code, or "none"
                                and what went wrong
  storm ADDR TOKEN SOURCES PER N
                                SOURCES addresses (127.0.0.10 up), PER
                                connections each, trickling request heads
                                without a token (a byte per 0.5 s; one the
                                daemon closes is opened again), while an
                                authorised client from 127.0.0.1 asks
                                GET /v1/status N times, 0.4 s apart, each
                                within 5 s; prints "served S of N opened O"
  framing ADDR TOKEN            POSTs whose body's end is ambiguous
                                (Transfer-Encoding other than one
                                "chunked"), each with a second request
                                hidden in its body: every one must get one
                                400 and a closed connection, nothing more;
                                prints "ok" or the first that did not
"""
import os
import re
import select
import json
import socket
import sys
import threading
import time


def connect(addr, src=None, timeout=10):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(addr[5:])
        return s
    host, port = addr.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect((host, int(port)))
    return s


def read_all(s, limit=1 << 20):
    out = b""
    try:
        while len(out) < limit:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def cmd_raw(addr):
    s = connect(addr)
    s.sendall(sys.stdin.buffer.read())
    sys.stdout.buffer.write(read_all(s))


def closed_by_peer(s):
    """True if the server closed (or reset) the connection."""
    try:
        r, _, _ = select.select([s], [], [], 0)
        if not r:
            return False
        return s.recv(4096) == b""
    except (ConnectionResetError, BrokenPipeError, OSError):
        return True


def cmd_trickle(addr, src, n, seconds):
    head = b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000
    conns = []
    for _ in range(int(n)):
        try:
            conns.append([connect(addr, src, timeout=2), 0, False])
        except OSError:
            pass
    end = time.time() + float(seconds)
    while time.time() < end:
        for c in conns:
            if c[2]:
                continue
            if closed_by_peer(c[0]):
                c[2] = True
                continue
            try:
                c[0].send(head[c[1] % len(head):c[1] % len(head) + 1])
                c[1] += 1
            except OSError:
                c[2] = True
        time.sleep(0.5)
    closed = sum(1 for c in conns if c[2] or closed_by_peer(c[0]))
    # connections refused at once count as accepted and closed
    print("accepted %d closed %d" % (len(conns), closed))


def http_get(addr, path, token):
    s = connect(addr)
    auth = ("Authorization: Bearer %s\r\n" % token) if token != "-" else ""
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n" % (path, auth)).encode())
    return read_all(s).decode("latin-1")


def cmd_partial(addr, token, path, cl, k):
    s = connect(addr)
    auth = ("Authorization: Bearer %s\r\n" % token) if token != "-" else ""
    s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/octet-stream\r\n"
               "Content-Length: %s\r\n\r\n" % (path, auth, cl)).encode())
    s.sendall(b"\0" * int(k))
    time.sleep(0.5)
    m = http_get(addr, "/metrics", token)
    for line in m.splitlines():
        if line.startswith('cuzkd_upload_bytes{state="in_use"}'):
            print(line.split()[-1])
            break
    else:
        print("no-metrics")
    s.close()


def cmd_plant(path, seconds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(8)
    s.settimeout(0.2)
    n = got = 0
    end = time.time() + float(seconds)
    while time.time() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        n += 1
        c.settimeout(1)
        got += len(read_all(c, 1 << 16))
        c.sendall(b"HTTP/1.1 500 x\r\nContent-Length: 0\r\n\r\n")
        c.close()
    print("connections %d bytes %d" % (n, got), flush=True)


def cmd_fake(path, result, seconds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(8)
    s.settimeout(0.2)
    end = time.time() + float(seconds)
    while time.time() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        c.settimeout(5)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    b = c.recv(65536)
                    if not b:
                        raise EOFError
                    buf += b
                head, buf = buf.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                method, target = lines[0].split()[:2]
                cl = 0
                for l in lines[1:]:
                    if l.lower().startswith("content-length:"):
                        cl = int(l.split(":", 1)[1])
                while len(buf) < cl:
                    b = c.recv(65536)
                    if not b:
                        raise EOFError
                    buf += b
                buf = buf[cl:]
                if method == "POST" and target.startswith("/v1/jobs"):
                    code, body = 202, b'{"job_id":1,"request_id":"fake","attached":false,"partitions":1}'
                elif "/result" in target:
                    code, body = 200, open(result, "rb").read()
                elif target.startswith("/v1/keys"):
                    code, body = 200, b'{"keys":[]}'
                else:
                    code, body = 200, b'{"state":"done"}'
                c.sendall(b"HTTP/1.1 %d x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                          % (code, len(body)) + body)
        except (EOFError, OSError, ValueError):
            pass
        c.close()


def race_one(addr, body, go, out, i):
    try:
        s = connect(addr, timeout=60)
        req = ("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)).encode() + body
        s.sendall(req[:-1])
        go.wait()
        s.sendall(req[-1:])
        head, _, rest = read_all(s).partition(b"\r\n\r\n")
        out[i] = (int(head.split()[1]), json.loads(rest or b"null"))
    except (OSError, ValueError, IndexError, threading.BrokenBarrierError) as e:
        out[i] = (0, str(e))


def race_round(addr, rid, n, bodies):
    go = threading.Barrier(n, timeout=30)
    out = [None] * n
    th = [threading.Thread(target=race_one, args=(addr, bodies[i % len(bodies)].replace(
        b"@RID@", rid.encode()), go, out, i)) for i in range(n)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    made = [i for i in range(n) if out[i][0] == 202 and out[i][1].get("attached") is False]
    if len(made) != 1:
        return "%d submits made a job (want 1): %s" % (len(made), out)
    winner = made[0] % len(bodies)
    job = out[made[0]][1].get("job_id")
    for i in range(n):
        code, body = out[i]
        if bodies[i % len(bodies)] == bodies[winner]:
            if code != 202 or body.get("job_id") != job:
                return "submit %d (the job's content): %s, want 202 for job %s" % (i, out[i], job)
        elif code != 409 or body.get("code") != "request_id_reused":
            return "submit %d (other content): %s, want 409 request_id_reused" % (i, out[i])
    return None


def cmd_race(addr, rounds, n, *bodies):
    bodies = [b.encode() for b in bodies]
    for r in range(int(rounds)):
        why = race_round(addr, "race-%d-%d" % (os.getpid(), r), int(n), bodies)
        if why:
            print("round %d: %s" % (r, why))
            return
    print("ok")


def cmd_stall(addr, token, path, cl, seconds):
    s = connect(addr)
    auth = ("Authorization: Bearer %s\r\n" % token) if token != "-" else ""
    t0 = time.time()
    s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/octet-stream\r\n"
               "Content-Length: %s\r\n\r\n" % (path, auth, cl)).encode())
    end = t0 + float(seconds)
    while time.time() < end:
        if closed_by_peer(s):
            break
        try:
            s.send(b"\0")
        except OSError:
            break
        time.sleep(0.5)
    else:
        print("open", flush=True)
        return
    print("closed after %.0f s" % (time.time() - t0), flush=True)


def cmd_early(addr, token, path, cl, mode):
    s = connect(addr, timeout=8)
    auth = ("Authorization: Bearer %s\r\n" % token) if token != "-" else ""
    what = ""
    try:
        s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\n"
                   "Content-Length: %s\r\n\r\n" % (path, auth, cl)).encode())
        if mode == "send":
            s.sendall(b" " * int(cl))
    except OSError as e:
        what = "send: %s; " % e
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except socket.timeout:
        what += "no answer in 8 s"
    except OSError as e:
        what += "recv: %s" % e
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", out)
    print(m.group(1).decode() if m and not what else "none (%s%s)" % (what, out[:60]))


FRAMING = [
    ("identity", [b"Transfer-Encoding: identity"]),
    ("gzip, chunked", [b"Transfer-Encoding: gzip, chunked"]),
    ("chunked, identity", [b"Transfer-Encoding: chunked, identity"]),
    ("two TE lines", [b"Transfer-Encoding: chunked", b"Transfer-Encoding: identity"]),
    ("chunked then gzip", [b"Transfer-Encoding: chunked", b"Transfer-Encoding: gzip"]),
    ("chunked and a blank", [b"Transfer-Encoding: chunked "]),
]


def framing_one(addr, token, name, lines):
    """None if the request got one 400 and the connection was closed."""
    hidden = b"GET /v1/status HTTP/1.1\r\nHost: x\r\n%s\r\n" % (
        ("Authorization: Bearer %s\r\n" % token).encode() if token != "-" else b"")
    body = b"%x\r\n{}\r\n0\r\n\r\n" % 2
    auth = [("Authorization: Bearer %s" % token).encode()] if token != "-" else []
    head = b"\r\n".join([b"POST /v1/keys HTTP/1.1", b"Host: x", b"Content-Type: application/json"]
                         + auth + lines) + b"\r\n\r\n"
    s = connect(addr, timeout=5)
    try:
        # the body and the hidden request, as a smuggler sends them
        s.sendall(head + body + hidden)
    except OSError:
        pass
    out, closed, end = b"", False, time.time() + 5
    try:
        while time.time() < end:
            b = s.recv(65536)
            if not b:
                closed = True
                break
            out += b
    except socket.timeout:
        pass
    except (ConnectionResetError, BrokenPipeError):
        closed = True
    s.close()
    codes = [int(c) for c in re.findall(rb"(?m)^HTTP/1\.[01] (\d{3}) ", out)]
    if codes != [400] or not closed:
        return "%s: answers %s, connection %s" % (name, codes, "closed" if closed else "left open")
    return None


def cmd_framing(addr, token):
    for name, lines in FRAMING:
        why = framing_one(addr, token, name, lines)
        if why:
            print(why)
            return
    print("ok")


def storm_conn(addr, src):
    try:
        s = connect(addr, src, timeout=2)
        s.setblocking(False)
        return s
    except OSError:
        return None


def cmd_storm(addr, token, sources, per, n):
    head = b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000
    srcs = ["127.0.0.%d" % (10 + i) for i in range(int(sources))]
    conns = [[src, None, 0] for src in srcs for _ in range(int(per))]
    opened = [0]
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for c in conns:
                if c[1] is not None and closed_by_peer(c[1]):
                    c[1].close()
                    c[1] = None
                if c[1] is None:
                    c[1] = storm_conn(addr, c[0])
                    c[2] = 0
                    if c[1] is None:
                        continue
                    opened[0] += 1
                try:
                    c[1].send(head[c[2] % len(head):c[2] % len(head) + 1])
                    c[2] += 1
                except OSError:
                    c[1].close()
                    c[1] = None
            stop.wait(0.5)

    t = threading.Thread(target=trickle)
    t.start()
    time.sleep(2)  # every storm connection open and trickling
    served = 0
    for _ in range(int(n)):
        try:
            s = connect(addr, "127.0.0.1", timeout=5)
            s.sendall(("GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                       "Connection: close\r\n\r\n" % token).encode())
            if read_all(s).startswith(b"HTTP/1.1 200"):
                served += 1
            s.close()
        except OSError:
            pass
        time.sleep(0.4)
    stop.set()
    t.join()
    for c in conns:
        if c[1] is not None:
            c[1].close()
    print("served %d of %s opened %d" % (served, n, opened[0]))


def cmd_burst(addr, token, sources, per):
    """SOURCES x PER clients at once, each from its own source address
    127.0.0.(10+i), each one authorised GET /v1/status, answered within 60 s."""
    go = threading.Event()
    ok = [0]
    lock = threading.Lock()

    def one(src):
        go.wait()
        try:
            s = connect(addr, src, timeout=60)
            s.sendall(("GET /v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                       "Connection: close\r\n\r\n" % token).encode())
            if read_all(s).startswith(b"HTTP/1.1 200"):
                with lock:
                    ok[0] += 1
            s.close()
        except OSError:
            pass

    threads = [threading.Thread(target=one, args=("127.0.0.%d" % (10 + i),))
               for i in range(int(sources)) for _ in range(int(per))]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    print("served %d of %d" % (ok[0], len(threads)))


if __name__ == "__main__":
    cmds = {"raw": cmd_raw, "trickle": cmd_trickle, "partial": cmd_partial, "plant": cmd_plant,
            "fake": cmd_fake, "race": cmd_race, "framing": cmd_framing,
            "stall": cmd_stall, "early": cmd_early, "storm": cmd_storm, "burst": cmd_burst}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
