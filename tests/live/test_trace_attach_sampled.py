#!/usr/bin/env python3
"""An attached trace sampled (vmscope --trace --trace-sample=BYTES PID),
then exact, then sampled again, on one running process
(tests/targets/heap_attach.c):

  - sampled (--trace-sample=64, the seed printed and taken from
    VMSCOPE_SEED): the target leaks 3,000 blocks of 40 bytes through
    leak_block while traced: the report says it was sampled (mode, mean,
    seed), has no "before" (no heap walk: a sampled trace records the
    frees of the blocks it sampled only, so none of those alive before
    could be seen freed), and leak_block's outstanding bytes, estimated,
    are within 30% of the 120,000 leaked (some 1,900 samples: a miss that
    large is over 10 standard deviations);
  - exact, attached again after that detach: 100 blocks leaked, exactly
    100 counted (the library left sampling behind);
  - sampled again: the estimate within 30% once more, and 1,000 of the
    first trace's blocks freed: none of those frees recorded (the
    library's set of sampled blocks renewed: some 460 of them were in
    the first trace's);
  - after each detach the target is untraced, no thread stopped, its
    answers those of an untraced run.
x86_64 only (the injection's).
"""
import json
import os
import platform
import random
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import poll, site, untraced_now, no_thread_stopped  # noqa

LEAK = 3000


def cmd(p, line):
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def mapped(pid):
    with open("/proc/%d/maps" % pid) as f:
        return {ln.split()[4] for ln in f if "vmscope-trace" in ln}


def attach_round(p, args, cmds, env):
    """vmscope --trace ARGS -e json PID while p runs cmds, ended by
    SIGINT: (the report or None, stderr, the answers)."""
    files = mapped(p.pid)
    v = subprocess.Popen([T.VMSCOPE, "--trace"] + args +
                         ["-e", "json", str(p.pid)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    poll(lambda: mapped(p.pid) - files or v.poll() is not None)
    out = [cmd(p, c) for c in cmds]
    v.send_signal(signal.SIGINT)
    o, e = v.communicate(timeout=180)
    try:
        d = json.loads(o)
    except ValueError:
        d = None
    return d, e.decode(errors="replace"), out


def leak_bytes(d):
    return sum(s["outstanding"]["bytes"]
               for s in site(d["trace"]["sites"], "leak_block"))


def sampled(p, env, seed, what, more=()):
    d, err, out = attach_round(p, ["--trace-sample=64"],
                               ["leak %d" % LEAK] + list(more), env)
    if not T.ok(d and d["attach"].get("injected"), "%s: injected, a "
                "report" % what, err[-300:]):
        return out
    tr = d["trace"]
    T.eq((tr["mode"], tr["sample_bytes"], str(tr["seed"]), tr["before"]),
         ("sampled", 64, seed, None), "%s: sampled, mean 64, the seed "
         "given, no \"before\"" % what)
    got, want = leak_bytes(d), LEAK * 40
    print("# %s: leak_block estimated %d bytes outstanding of %d"
          % (what, got, want))
    T.ok(abs(got - want) <= 0.3 * want, "%s: leak_block's outstanding "
         "bytes within 30%% of %d (%d)" % (what, want, got))
    if more:
        T.eq(tr["unknown_frees"], 0, "%s: the %s of blocks the first "
             "trace sampled: none recorded (its set of sampled blocks "
             "renewed)" % (what, " ".join(more)))
    return out


def main():
    if platform.machine() != "x86_64":
        T.skip("a sampled attach", "x86_64 only")
        return T.done()
    seed = os.environ.get("VMSCOPE_SEED") or str(random.randrange(1 << 32))
    print("# seed %s (VMSCOPE_SEED=%s replays it)" % (seed, seed))
    env = dict(os.environ, VMSCOPE_SEED=seed)
    cmds = ["leak %d" % LEAK, "leak 100", "leak %d" % LEAK, "free 1000"]
    q, _ = T.start([T.target("heap_attach")])
    plain = [cmd(q, c) for c in cmds]
    T.kill(q)
    p, _ = T.start([T.target("heap_attach")])
    out = sampled(p, env, seed, "sampled")
    T.ok(untraced_now(p.pid) and no_thread_stopped(p.pid),
         "sampled: after the detach, untraced, no thread stopped")
    d, err, o = attach_round(p, [], ["leak 100"], env)
    out += o
    T.ok(d and d["trace"]["mode"] == "exact" and
         [(s["outstanding"]["count"], s["outstanding"]["bytes"])
          for s in site(d["trace"]["sites"], "leak_block")] ==
         [(100, 4000)],
         "exact after a sampled attach: leak_block's 100 blocks exactly",
         (err[-300:], d and site(d["trace"]["sites"], "leak_block")))
    out += sampled(p, env, seed, "sampled again", ["free 1000"])
    T.ok(p.poll() is None and untraced_now(p.pid) and
         no_thread_stopped(p.pid) and out == plain,
         "the target runs on, untraced, its answers an untraced run's",
         (out, plain))
    T.kill(p)
    return T.done()


if __name__ == "__main__":
    main()
