"""redis-py's Sentinel client writing through ruvio coordinators.

usage: sentinel_client.py HOST:PORT[,HOST:PORT...] SECONDS
Writes key w:<n> for SECONDS, rediscovering the primary through the
coordinators on errors, and prints one line per acknowledged write:
"<unix ms> <n> <primary host:port>".

Optional environment:
  SENTINEL_PASSWORD  the coordinators' secret
  TLS_CA             a CA file: the coordinators and the data nodes are
                     dialled with TLS and their certificates checked
  TLS_CERT, TLS_KEY  the client certificate shown to both
"""
import os
import sys
import time

from redis.sentinel import Sentinel

addrs = [(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in sys.argv[1].split(",")]
seconds = float(sys.argv[2])

tls = {}
if os.environ.get("TLS_CA"):
    tls = {"ssl": True, "ssl_ca_certs": os.environ["TLS_CA"], "ssl_cert_reqs": "required"}
    if os.environ.get("TLS_CERT"):
        tls["ssl_certfile"] = os.environ["TLS_CERT"]
        tls["ssl_keyfile"] = os.environ["TLS_KEY"]
sentinel_kwargs = dict(tls, socket_timeout=0.5)
if os.environ.get("SENTINEL_PASSWORD"):
    sentinel_kwargs["password"] = os.environ["SENTINEL_PASSWORD"]

sentinel = Sentinel(addrs, socket_timeout=0.5, sentinel_kwargs=sentinel_kwargs)
master = sentinel.master_for("main", socket_timeout=0.5, retry_on_timeout=False, **tls)
end = time.time() + seconds
n = 0
while time.time() < end:
    n += 1
    try:
        master.set("w:%d" % n, n)
        host, port = sentinel.discover_master("main")
        print("%d %d %s:%d" % (int(time.time() * 1000), n, host, port), flush=True)
    except Exception as e:  # a failover in progress: try again
        print("# %s" % e, file=sys.stderr, flush=True)
        time.sleep(0.05)
