"""The backlog LP bound on the generated kernels of makespan-long-cap10.json, against the runs recorded there.

Each (kernel, W) gets the bound with HiGHS limited to 5 s (what ``--timeout 10`` leaves it: half the time),
and the ratio min(recorded upper, backlog) / recorded lower.  The recorded lower bounds are replayed runs of
that benchmark.  Writes benchmarks/results/makespan-long-backlog.json.  Run from the repository root.
"""
import json, statistics, time
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.verify.makespan.backlog import backlog_bound
d = json.load(open('benchmarks/results/makespan-long-cap10.json'))
out = []
for r in d['rows']:
    if not r.get('text') or 'lower' not in r: continue
    k = make_kernel(r['text'], r['sigma'])
    t = time.monotonic(); b = backlog_bound(k, r['W'], 5.0); s = time.monotonic() - t
    up = min(r['upper'], b.upper) if b else r['upper']
    out.append(dict(kernel=r['kernel'], W=r['W'], lower=r['lower'], old=r['upper'], backlog=b.upper if b else None,
                    seconds=round(s, 2), ratio_old=r['upper']/r['lower'], ratio_new=up/r['lower']))
    print(out[-1], flush=True)
json.dump(out, open('benchmarks/results/makespan-long-backlog.json', 'w'), indent=1)
