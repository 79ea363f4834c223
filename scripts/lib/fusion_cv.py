#!/usr/bin/env python3
"""Cross-validated parameter fitting for EdgeMotion's RobustAttitudeFilter (9D) on the BROAD
development trials. Used by scripts/fusion-cv; scoring formulas are those of
../shared/tools/fusion_eval.py (imported, not copied).

Two halves, balanced by condition (every other trial in name order, so each half has slow and
fast rotation, translation, tapping/vibration, stationary and attached magnets):
  A = 01 04 07 10 14 24 28 31 33      B = 02 06 09 11 15 27 30 32 36
For a grid of candidate parameter sets: fit (argmin of mean 9D total RMSE) on one half, score the
chosen set on the other half, and swap.
"""
import json, os, subprocess, sys, tempfile, hashlib
from concurrent.futures import ThreadPoolExecutor
import numpy as np

HALF_A = ['01', '04', '07', '10', '14', '24', '28', '31', '33']
HALF_B = ['02', '06', '09', '11', '15', '27', '30', '32', '36']


class Bench:
    def __init__(self, binary, data, scorer_dir, work, jobs=2):
        sys.path.insert(0, scorer_dir)
        import fusion_eval
        self.fe = fusion_eval
        self.binary, self.data, self.work, self.jobs = binary, data, work, jobs
        os.makedirs(f'{work}/cache', exist_ok=True)
        self.files = sorted(f for f in os.listdir(data) if f.endswith('.csv.gz'))
        self.names = [f[:-7] for f in self.files]
        self.truth = {}
        for f, n in zip(self.files, self.names):
            c = f'{work}/cache/{n}.npz'
            if not os.path.exists(c):
                tr = fusion_eval.load_trial(f'{data}/{f}')
                np.savez(c, t=tr['t'], quat=tr['quat'], movement=tr['movement'], fs=tr['fs'])
            z = np.load(c)
            self.truth[n] = (z['quat'], z['movement'])
        self.memo_path = f'{work}/memo.json'
        self.memo = json.load(open(self.memo_path)) if os.path.exists(self.memo_path) else {}

    def half(self, name):
        return 'A' if name[:2] in HALF_A else 'B'

    def vqf(self):
        """VQF 2.x defaults, 9D, per trial: (total, heading, inclination)."""
        c = f'{self.work}/vqf.json'
        if os.path.exists(c):
            return json.load(open(c))
        out = {}
        for f, n in zip(self.files, self.names):
            tr = self.fe.load_trial(f'{self.data}/{f}')
            q, _, _ = self.fe.run_vqf(tr, True)
            r = self.fe.broad_rmse(q, tr['quat'], tr['movement'], '9d')
            out[n] = [r['total'], r['heading'], r['incl']]
        json.dump(out, open(c, 'w'))
        return out

    def _one(self, name, cfg_path, mode):
        out = subprocess.run([self.binary, 'fusion', '--input', f'{self.data}/{name}.csv.gz', '--output', '-',
                              '--mode', mode] + (['--config', cfg_path] if cfg_path else []),
                             capture_output=True, text=True, check=True).stdout
        v = np.array(out[out.index('\n') + 1:].replace('\n', ',').split(',')[:-1], float).reshape(-1, 5)
        quat, mov = self.truth[name]
        assert len(v) == len(quat), name
        r = self.fe.broad_rmse(v[:, 1:5], quat, mov, mode)
        return name, [r['total'], r['heading'], r['incl']]

    def run(self, params, mode='9d'):
        """params: dict name → value. Returns {trial: [total, heading, inclination]}."""
        text = ''.join(f'{k} = {v}\n' for k, v in sorted(params.items()))
        key = mode + '|' + text
        if key in self.memo:
            return self.memo[key]
        cfg = None
        if text:
            cfg = f'{self.work}/cfg-{hashlib.sha1(text.encode()).hexdigest()[:12]}.txt'
            open(cfg, 'w').write(text)
        with ThreadPoolExecutor(self.jobs) as ex:
            res = dict(ex.map(lambda n: self._one(n, cfg, mode), self.names))
        self.memo[key] = res
        json.dump(self.memo, open(self.memo_path, 'w'))
        return res


def mean(res, names, i=None):
    v = np.array([res[n] for n in names])
    return v.mean(axis=0) if i is None else float(v[:, i].mean())


def cross_validate(bench, grid):
    """grid: list of (label, params). Returns report dict."""
    results = [(label, p, bench.run(p)) for label, p in grid]
    names = bench.names
    halves = {'A': [n for n in names if bench.half(n) == 'A'], 'B': [n for n in names if bench.half(n) == 'B']}
    rep = {'grid': [(label, p, {h: list(mean(r, halves[h])) for h in 'AB'} | {'all': list(mean(r, names))})
                    for label, p, r in results]}
    for fit, test in (('A', 'B'), ('B', 'A')):
        best = min(results, key=lambda x: mean(x[2], halves[fit], 0))
        rep[f'fit{fit}'] = dict(label=best[0], params=best[1], train=list(mean(best[2], halves[fit])),
                                test=list(mean(best[2], halves[test])))
    best = min(results, key=lambda x: mean(x[2], names, 0))
    rep['all'] = dict(label=best[0], params=best[1], score=list(mean(best[2], names)))
    return rep
