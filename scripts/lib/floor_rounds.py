"""Interleaved floor rounds for scripts/bench-peers (issue 17: EdgeMotion within 1.2x of the C floor).

On a shared 2-core machine one run of the floor and one of the agent can land in different load
(the same binary measured 0.96-2.06x the floor in single runs). A round here is the floor program
then each EdgeMotion binary, back to back, for CPU (1 kHz, 4 streams, bursts of 10, 100 msg/s each)
and then for p99 latency (batch 1); the ratio is taken per round, and the report gives the MEDIAN of
the per-round ratios and their min-max range, so load that drifts across the run cancels.

Units: CPU in ns per source sample (process user+sys over the steady-state window, and per thread
from /proc/<pid>/task/*/schedstat), latency in ms (sample deadline -> arrival at the subscriber).
"""
import os
import statistics


def interleaved_rounds(pairs, binaries, floor_cpu_us, floor_p99_ms, agent_cpu, agent_p99_ms, loadavg, log):
    """Runs `pairs` rounds. Callables: floor_cpu_us() -> CPU us per burst of 10 (the floor program);
    floor_p99_ms() -> p99 ms of the floor at 1 kHz batch 1; agent_cpu(bin) -> (ns/sample,
    {thread: ns/sample}); agent_p99_ms(bin) -> p99 ms at 1 kHz batch 1. Returns the list of rounds."""
    rounds = []
    for i in range(pairs):
        r = {'load': loadavg(), 'floor_ns': floor_cpu_us() * 1000 / 10, 'agents': []}
        for b in binaries:
            cpu, threads = agent_cpu(b)
            r['agents'].append({'bin': b, 'cpu_ns': cpu, 'threads': threads})
        r['floor_p99_ms'] = floor_p99_ms()
        for a in r['agents']:
            a['p99_ms'] = agent_p99_ms(a['bin'])
            a['cpu_vs_floor'] = a['cpu_ns'] / r['floor_ns']
            a['p99_vs_floor'] = a['p99_ms'] / r['floor_p99_ms'] if r['floor_p99_ms'] > 0 else float('nan')
        log(f'round {i + 1}/{pairs} (load {r["load"]}): floor {r["floor_ns"]:.0f} ns/sample, p99 {r["floor_p99_ms"]:.3f} ms; '
            + '; '.join(f'{a["bin"]}: {a["cpu_ns"]:.0f} ns ({a["cpu_vs_floor"]:.2f}x), p99 {a["p99_ms"]:.3f} ms '
                        f'({a["p99_vs_floor"]:.2f}x)' for a in r['agents']))
        rounds.append(r)
    return rounds


def med_range(values):
    """(median, min, max) of a non-empty list."""
    return statistics.median(values), min(values), max(values)


def summary(rounds):
    """Per binary (in the order given): median and range of the per-round ratios and figures."""
    out = []
    for j, first in enumerate(rounds[0]['agents']):
        per = [r['agents'][j] for r in rounds]
        threads = {}
        for a in per:
            for name, ns in a['threads'].items():
                threads.setdefault(name, []).append(ns)
        out.append({'bin': first['bin'],
                    'cpu_vs_floor': med_range([a['cpu_vs_floor'] for a in per]),
                    'p99_vs_floor': med_range([a['p99_vs_floor'] for a in per]),
                    'cpu_ns': med_range([a['cpu_ns'] for a in per]),
                    'p99_ms': med_range([a['p99_ms'] for a in per]),
                    'threads': {n: statistics.median(v) for n, v in threads.items()}})
    return {'pairs': len(rounds), 'floor_ns': med_range([r['floor_ns'] for r in rounds]),
            'floor_p99_ms': med_range([r['floor_p99_ms'] for r in rounds]),
            'loads': [r['load'] for r in rounds], 'agents': out}


def ratio_keys(s, index=0):
    """The floor keys of the `ratios:` line for binary `index`: medians over the rounds, plus ranges."""
    a = s['agents'][index]
    m, lo, hi = a['cpu_vs_floor']
    pm, plo, phi = a['p99_vs_floor']
    return (f'cpu_vs_floor={m:.2f} cpu_vs_floor_range={lo:.2f}-{hi:.2f} p99_floor_ms={s["floor_p99_ms"][0]:.3f} '
            f'p99_vs_floor={pm:.2f} p99_vs_floor_range={plo:.2f}-{phi:.2f} floor_pairs={s["pairs"]}')


def _name(b):
    """A binary's path relative to the working directory when inside it (no machine paths in docs)."""
    r = os.path.relpath(b)
    return b if r.startswith('..') else r


def text(s):
    """Human-readable lines: one per binary, then per-thread ns/sample."""
    lines = [f'interleaved floor rounds: {s["pairs"]} pairs, load per round {" | ".join(s["loads"])}',
             f'floor: {s["floor_ns"][0]:.0f} ns/sample (range {s["floor_ns"][1]:.0f}-{s["floor_ns"][2]:.0f}), '
             f'p99 {s["floor_p99_ms"][0]:.3f} ms (range {s["floor_p99_ms"][1]:.3f}-{s["floor_p99_ms"][2]:.3f})']
    for a in s['agents']:
        c, p = a['cpu_vs_floor'], a['p99_vs_floor']
        lines.append(f'{_name(a["bin"])}: cpu {a["cpu_ns"][0]:.0f} ns/sample, cpu_vs_floor median {c[0]:.2f} (range {c[1]:.2f}-{c[2]:.2f}); '
                     f'p99 {a["p99_ms"][0]:.3f} ms, p99_vs_floor median {p[0]:.2f} (range {p[1]:.2f}-{p[2]:.2f})')
        lines.append('  per thread ns/sample (median): ' + ', '.join(
            f'{n} {v:.0f}' for n, v in sorted(a['threads'].items(), key=lambda kv: -kv[1]) if v >= 1))
    return lines
