"""The report: the project's speed targets, the console table and the Markdown summary.

The targets are those the project set for the runtime (speed against real time and against
the peer, step latency, start-up time, memory); the benchmark reports each next to what the
run measured and never asserts one.
"""

from __future__ import annotations

import re

from manoeuvres import describe
from variants import LABELS, VARIANTS

# The targets' limits.
ENGINE_REAL_TIME = 200.0     # x real time, the engine called directly
ENGINE_PEER_RATIO = 40.0     # x the peer's real-time factor
FMU_10MS_REAL_TIME = 100.0   # x real time through fmpy at a 10 ms communication step
FMU_1MS_REAL_TIME = 20.0     # x real time through fmpy at 1 ms
FMU_1MS_DOSTEP_P99 = 100.0   # us, 99th percentile of a 1 ms doStep
COLD_START = 2.0             # s, new process to first doStep done
PEAK_RSS = 250.0             # MB per engine or FMU process
# A combination (an event with towed units): the FMU's target at a 10 ms communication step;
# the other speed targets above are the single vehicle's and are not applied to it.
COMBINATION_FMU_10MS_REAL_TIME = 50.0   # x real time through fmpy


def _fmt(value, spec):
    """Format a number, or a right-aligned dash when there is none."""
    if value is None:
        width = int(re.match(r"\d*", spec).group() or 0)
        return "-".rjust(width)
    return format(value, spec)




def evaluate_targets(report):
    """The project's speed targets, next to what this run measured: the single vehicle's,
    or for a combination the FMU's at 10 ms (with start-up time and memory)."""
    results = report["results"]
    combination = report["manoeuvre"].get("units", 1) > 1

    def value(name, *keys):
        r = results.get(name, {})
        if not r.get("ok"):
            return None
        for key in keys:
            r = r.get(key) if isinstance(r, dict) else None
        return r

    peer = value("peer", "real_time_factor")
    rows = []

    def add(target, measured, unit, limit, at_least=True):
        met = None if measured is None else (measured >= limit if at_least else measured < limit)
        rows.append({"target": target, "measured": measured, "unit": unit, "met": met})

    if combination:
        add(f"fmu-10ms: >= {COMBINATION_FMU_10MS_REAL_TIME:g} x real time (combination)",
            value("fmu-10ms", "real_time_factor"), "x", COMBINATION_FMU_10MS_REAL_TIME)
    else:
        for name in ("engine-1ms", "engine-10ms", "engine-advance"):
            rtf = value(name, "real_time_factor")
            add(f"{name}: >= {ENGINE_REAL_TIME:g} x real time", rtf, "x", ENGINE_REAL_TIME)
            add(f"{name}: >= {ENGINE_PEER_RATIO:g} x the peer",
                rtf / peer if (rtf and peer) else None, "x", ENGINE_PEER_RATIO)
        add(f"fmu-10ms: >= {FMU_10MS_REAL_TIME:g} x real time",
            value("fmu-10ms", "real_time_factor"), "x", FMU_10MS_REAL_TIME)
        add(f"fmu-1ms: >= {FMU_1MS_REAL_TIME:g} x real time",
            value("fmu-1ms", "real_time_factor"), "x", FMU_1MS_REAL_TIME)
        add(f"fmu-1ms: doStep p99 < {FMU_1MS_DOSTEP_P99:g} us",
            value("fmu-1ms", "doStep", "p99_us"), "us", FMU_1MS_DOSTEP_P99, at_least=False)
    cold = [r["time_to_first_doStep_s"] for r in report.get("cold_start", [])[1:]
            if r.get("ok") and "time_to_first_doStep_s" in r]
    add(f"cold start to first doStep < {COLD_START:g} s (worst of 2)",
        max(cold) if cold else None, "s", COLD_START, at_least=False)
    rss = [r["max_rss_mb"] for name, r in results.items()
           if r.get("ok") and (name.startswith("fmu") or name.startswith("engine"))]
    rss += [r["max_rss_mb"] for r in report.get("cold_start", []) if r.get("ok")]
    add(f"peak RSS < {PEAK_RSS:g} MB per engine/FMU process (worst)",
        max(rss) if rss else None, "MB", PEAK_RSS, at_least=False)
    return rows


def print_table(report):
    results = report["results"]
    peer = results.get("peer", {})
    peer_rtf = peer.get("real_time_factor") if peer.get("ok") else None
    print()
    print(f"machine: {report['machine']['hostname']}, {report['machine']['cpu_model']}, "
          f"{report['machine']['physical_cores']} cores / {report['machine']['logical_cores']} "
          f"threads, Python {report['machine']['python']}, "
          f"{report['date_utc']}")
    rev = report["git_revision"]
    print(f"revision {rev['head']}" + (f", with uncommitted changes to {len(rev['uncommitted'])} "
                                        "engine/slave/catalogue file(s)"
                                        if rev["uncommitted"] else ""))
    print("load average (1, 5, 15 min) at start " +
          " ".join(f"{x:.2f}" for x in report["machine"]["load_average_at_start"]) +
          ", at end " + " ".join(f"{x:.2f}" for x in report["machine"]["load_average_at_end"]))
    print(f"manoeuvre: {describe(report['manoeuvre'])}")
    print()
    header = (f"{'variant':<42}{'wall s':>9}{'x real time':>13}{'x peer':>9}"
              f"{'peak RSS MB':>13}{'peak ay':>9}{'setup s':>9}")
    print(header)
    print("-" * len(header))
    for name in list(VARIANTS) + ["python"]:
        r = results.get(name)
        if r is None:
            continue
        if not r.get("ok"):
            print(f"{LABELS[name]:<42}  FAILED: {r.get('error', '')[:200]}")
            continue
        rtf = r.get("real_time_factor")
        ratio = rtf / peer_rtf if (rtf and peer_rtf) else None
        print(f"{LABELS[name]:<42}{_fmt(r.get('wall_s'), '9.3f')}{_fmt(rtf, '13.1f')}"
              f"{_fmt(ratio, '9.1f')}{_fmt(r.get('max_rss_mb'), '13.1f')}"
              f"{_fmt(r.get('peak_ay_mps2', r.get('final_ay_mps2')), '9.2f')}"
              f"{_fmt(r.get('setup_s'), '9.2f')}")
    print("* inputs held (steering at the sine amplitude, trim throttle): not the sine")
    print()
    print(f"{'per call, microseconds':<42}{'median':>9}{'p99':>9}{'max':>9}")
    for name, key, what in (("engine-1ms", "per_call", "loop iteration incl. advance()"),
                            ("engine-10ms", "per_call", "loop iteration incl. advance()"),
                            ("fmu-10ms", "doStep", "doStep"),
                            ("fmu-10ms", "loop_iteration", "set + doStep + get iteration"),
                            ("fmu-1ms", "doStep", "doStep"),
                            ("fmu-1ms", "setReal", "setReal (2 inputs)"),
                            ("fmu-1ms", "getReal", "getReal (2 outputs)"),
                            ("fmu-1ms", "loop_iteration", "set + doStep + get iteration"),
                            ("fmu-1ms-buffers", "setReal", "setReal (2 inputs)"),
                            ("fmu-1ms-buffers", "getReal", "getReal (2 outputs)"),
                            ("fmu-1ms-buffers", "loop_iteration", "set + doStep + get")):
        r = results.get(name, {})
        stats = r.get(key)
        if r.get("ok") and stats:
            tag = f"{name}: {what}"
            print(f"{tag:<42}{stats['median_us']:9.1f}{stats['p99_us']:9.1f}"
                  f"{stats['max_us']:9.1f}")
    cold = report.get("cold_start", [])
    if cold:
        print()
        for i, r in enumerate(cold):
            tag = "priming run" if i == 0 else f"cold start {i}"
            if not r.get("ok"):
                print(f"{tag}: FAILED: {r.get('error', '')[:200]}")
                continue
            b = r["breakdown"]
            print(f"{tag}: new process to first doStep done {r['time_to_first_doStep_s']:.2f} s "
                  f"(import fmpy {b['import_fmpy_s']:.2f}, extract {b['read_and_extract_s']:.2f}, "
                  f"instantiate {b['load_and_instantiate_s']:.2f}, "
                  f"initialise {b['initialize_s']:.2f}, "
                  f"first doStep {b['first_doStep_s'] * 1e3:.2f} ms), "
                  f"peak RSS {r['max_rss_mb']:.0f} MB")
    print()
    print("real-time targets (reported, not asserted):")
    for t in report.get("targets", []):
        verdict = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        print(f"  {t['target']:<58}{_fmt(t['measured'], '10.1f')} {t['unit']:<6} {verdict}")



#: The per-call rows of the Markdown summary: (variant, figure).
PER_CALL_ROWS = (("engine-1ms", "per_call"), ("fmu-10ms", "doStep"), ("fmu-1ms", "doStep"),
                 ("fmu-1ms", "setReal"), ("fmu-1ms", "getReal"), ("fmu-1ms", "loop_iteration"))


def measured_line(report):
    """When, where and at which revision the report was measured, in one sentence."""
    m, rev = report["machine"], report["git_revision"]
    return (
        f"Measured {report['date_utc'][:10]} on `{m['hostname']}`: {m['cpu_model']}, "
        f"{m['physical_cores']} cores / {m['logical_cores']} threads, Python {m['python']}, "
        f"numba {m['versions'].get('numba')}, fmpy {m['versions'].get('fmpy')}; revision "
        f"{rev['head']}" + (" plus uncommitted engine/slave changes" if rev["uncommitted"]
                            else "") +
        f"; load average {m['load_average_at_start'][0]:.2f} at the start, "
        f"{m['load_average_at_end'][0]:.2f} at the end; best of {report['rounds']} rounds, "
        f"{report['manoeuvre']['duration_s']:g} s manoeuvre.")


def variants_table(report, rss="peak RSS MB"):
    """The variants' figures as a Markdown table (lines); `rss` heads the memory column."""
    results = report["results"]
    peer_rtf = results.get("peer", {}).get("real_time_factor")
    lines = [f"| variant | wall s | x real time | x peer | {rss} | peak ay m/s^2 |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in list(VARIANTS) + ["python"]:
        r = results.get(name)
        if r is None:
            continue
        if not r.get("ok"):
            lines.append(f"| {LABELS[name]} | failed | | | | |")
            continue
        rtf = r.get("real_time_factor")
        ratio = rtf / peer_rtf if (rtf and peer_rtf) else None
        ay = r.get("peak_ay_mps2", r.get("final_ay_mps2"))
        lines.append(f"| {LABELS[name]} | {_fmt(r.get('wall_s'), '.3f')} | {_fmt(rtf, '.1f')} | "
                     f"{_fmt(ratio, '.1f')} | {_fmt(r.get('max_rss_mb'), '.0f')} | "
                     f"{_fmt(ay, '.2f')} |")
    return lines


def per_call_table(report, rows=PER_CALL_ROWS, title="per call, us"):
    """Median, 99th percentile and maximum of the per-call times of `rows` (those measured)
    as a Markdown table (lines)."""
    lines = [f"| {title} | median | p99 | max |", "| --- | ---: | ---: | ---: |"]
    for name, key in rows:
        stats = report["results"].get(name, {}).get(key)
        if stats:
            lines.append(f"| {name} {key} | {stats['median_us']:.1f} | {stats['p99_us']:.1f} | "
                         f"{stats['max_us']:.1f} |")
    return lines


def cold_start_line(report):
    """The cold starts after the priming run, in one sentence (None without any)."""
    cold = [r for r in report.get("cold_start", [])[1:] if r.get("ok")]
    if not cold:
        return None
    return ("Cold start (new process to first doStep done, after a priming run): " +
            ", ".join(f"{r['time_to_first_doStep_s']:.2f} s" for r in cold) +
            f"; peak RSS {max(r['max_rss_mb'] for r in cold):.0f} MB.")


def markdown_summary(report, manoeuvre=True, targets=True):
    """The figures as Markdown, in the form benchmarks/README.md quotes them (docs/benchmarks.md
    without the manoeuvre and the targets: tools/update_doc_numbers.py)."""
    lines = [measured_line(report), ""]
    if manoeuvre:
        lines += [f"Manoeuvre: {describe(report['manoeuvre'])}.", ""]
    lines += [*variants_table(report), "",
             "\\* inputs held (steering at the sine's amplitude, trim throttle), not the "
             "sine. simulate_fmu's wall time includes extracting, loading and initialising.",
             "", *per_call_table(report)]
    cold = cold_start_line(report)
    if cold:
        lines += ["", cold]
    rows = report.get("targets", []) if targets else []
    if rows:
        lines += ["", "Real-time targets (reported, not asserted): " + "; ".join(
            f"{t['target']}: {_fmt(t['measured'], '.1f')} {t['unit']}, "
            + {True: "met", False: "not met", None: "not measured"}[t["met"]]
            for t in rows) + "."]
    return "\n".join(lines) + "\n"
