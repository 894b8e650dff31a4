#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/plot.py RESULTS_DIR [--out DIR] [--format png|svg] [--tables-only] -
markdown tables and plots of a bench run's JSON (bench/run.sh writes them to
one results folder):

  matrix.jsonl         -> throughput_vs_size.*    Gbit/s (steady) vs frame size
                          throughput_vs_queues.*  Mpps (steady) vs RX queues
  latency*.json        -> latency_cdf.*           echo round trip, from the
                          percentiles the latency bench reports (p50 .. max)
  launch_patterns.json -> launch_patterns.*       Mpps per launch pattern (log)
  peers.json           -> peers.*                 pps per contestant on veth
  idle_cpu.jsonl       -> idle_cpu.*              an idle queue's proxy CPU, % of a
                          core, --poll adaptive against busy (bench/idle_cpu.sh)

tables.md (in RESULTS_DIR) gets one markdown table per input, for
docs/PERFORMANCE.md; it needs only python3. The plots need matplotlib
(Debian: python3-matplotlib) and go to RESULTS_DIR/plots; only those whose
input exists are drawn. Each written file is printed on its own line.
Exit: 0 done; 1 nothing to read, or an input did not parse; 2 bad usage;
77 matplotlib is missing (the tables were still written).
"""
import argparse
import glob
import json
import os
import re
import sys

plt = None  # matplotlib.pyplot, loaded by load_matplotlib()


def load_matplotlib():
    global plt
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as pyplot
    except ImportError:
        return False
    plt = pyplot
    return True


def last_json_line(path):
    """The document in a JSON file, or the last line of a log that parses as
    a JSON object (the benches print their table first, one JSON object
    last)."""
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
        if isinstance(doc, dict):
            return doc
    except ValueError:
        pass
    for line in reversed([l for l in text.splitlines() if l.lstrip().startswith("{")]):
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise ValueError("%s: no JSON object" % path)


def title_suffix(doc):
    dev = doc.get("device_name") or doc.get("gpu_name") or doc.get("device") or ""
    return " (%s)" % dev if dev else ""


def save(fig, out, name, fmt):
    path = os.path.join(out, "%s.%s" % (name, fmt))
    fig.tight_layout()
    fig.savefig(path, format=fmt, dpi=110)
    plt.close(fig)
    return path


# ------------------------------------------------------------- matrix --

def matrix_rows(path):
    """(wire, size, queues, mem, extra, run) for each run that balanced and
    reported a steady rate."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            run = d.get("run")
            parts = d.get("config", "").split()
            if not run or len(parts) < 4 or "mpps_steady" not in run:
                continue
            wire, size, queues, mem = parts[0], int(parts[1]), int(parts[2]), parts[3]
            rows.append((wire, size, queues, mem, " ".join(parts[4:]), run))
    return rows


def plot_matrix(rows, out, fmt, device):
    written = []
    # Gbit/s vs frame size: one line per (wire, queues, pool, options).
    series = {}
    for wire, size, q, mem, extra, run in rows:
        series.setdefault((wire, q, mem, extra), []).append((size, run.get("gbps_steady", 0.0)))
    series = {k: sorted(v) for k, v in series.items() if len({s for s, _ in v}) >= 2}
    if series:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for (wire, q, mem, extra), pts in sorted(series.items()):
            label = "%s, %d queue%s, %s%s" % (wire, q, "" if q == 1 else "s", mem, (" " + extra) if extra else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xlabel("frame size (bytes)")
        ax.set_ylabel("Gbit/s (steady)")
        ax.set_title("gnio run: throughput vs frame size%s" % device)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        written.append(save(fig, out, "throughput_vs_size", fmt))
    # Mpps vs queues: one line per (wire, size, pool, options).
    series = {}
    for wire, size, q, mem, extra, run in rows:
        series.setdefault((wire, size, mem, extra), []).append((q, run.get("mpps_steady", 0.0)))
    series = {k: sorted(v) for k, v in series.items() if len({q for q, _ in v}) >= 2}
    if series:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for (wire, size, mem, extra), pts in sorted(series.items()):
            label = "%s, %d B, %s%s" % (wire, size, mem, (" " + extra) if extra else "")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xlabel("RX queues (a proxy thread and a kernel each)")
        ax.set_ylabel("Mpps (steady)")
        ax.set_xticks(sorted({p[0] for pts in series.values() for p in pts}))
        ax.set_title("gnio run: packet rate vs queues%s" % device)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        written.append(save(fig, out, "throughput_vs_queues", fmt))
    return written


# ------------------------------------------------------------ latency --

def latency_points(doc):
    """(microseconds, cumulative fraction) from min_us, pNN_us / pNNN_us
    (p999 = 99.9) and max_us, sorted by fraction."""
    pts = []
    if "min_us" in doc:
        pts.append((doc["min_us"], 0.0))
    for k, v in doc.items():
        m = re.fullmatch(r"p(\d+)_us", k)
        if m:
            digits = m.group(1)
            # p50 -> 0.50, p99 -> 0.99, p999 -> 0.999, p9999 -> 0.9999
            frac = float("0." + digits) if len(digits) > 2 else int(digits) / 100.0
            pts.append((v, frac))
    if "max_us" in doc:
        pts.append((doc["max_us"], 1.0))
    return sorted(pts, key=lambda p: p[1])


def plot_latency(docs, out, fmt):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    for name, doc in docs:
        pts = latency_points(doc)
        if len(pts) < 2:
            continue
        label = "%s %s, %s B, %s scope (%s)" % (doc.get("device_name", doc.get("device", "?")), doc.get("app", ""),
                                             doc.get("size", "?"), doc.get("recv_scope", "?"), name)
        # The tail on a log axis: 1 - F, so p99 and p99.9 are apart.
        xs = [p[0] for p in pts if p[1] < 1.0]
        ys = [1.0 - p[1] for p in pts if p[1] < 1.0]
        ax.plot(xs, ys, marker="o", label=label)
        for x, y, (_, f) in zip(xs, ys, [p for p in pts if p[1] < 1.0]):
            if f > 0:
                ax.annotate("p%g" % (f * 100), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
        drawn += 1
    if not drawn:
        plt.close(fig)
        return []
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.set_xlabel("round trip (µs)")
    ax.set_ylabel("fraction of round trips slower (1 - CDF)")
    ax.set_title("echo round trip, one frame in flight (from the reported percentiles)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return [save(fig, out, "latency_cdf", fmt)]


# ------------------------------------------------------------ idle CPU --

def idle_rows(path):
    """bench/idle_cpu.sh --json: one object per poll mode."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    if not rows:
        raise ValueError("no measurement in %s" % path)
    return rows


def idle_table(rows):
    return md_table(["poll", "RX proxy % of a core", "TX proxy %", "both %", "whole process %", "window s",
                     "frames", "balanced"],
                    [[r["poll"], r["rx_proxy_pct"], r["tx_proxy_pct"], r["proxies_pct"], r["process_pct"],
                      r["window_s"], r["rx_packets"], r["balanced"]] for r in rows])


def plot_idle(rows, out, fmt):
    fig, ax = plt.subplots(figsize=(6, 4))
    modes = [r["poll"] for r in rows]
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [max(r["rx_proxy_pct"], 0.01) for r in rows], 0.4, label="RX proxy")
    ax.bar([x + 0.2 for x in xs], [max(r["tx_proxy_pct"], 0.01) for r in rows], 0.4, label="TX proxy")
    for x, r in zip(xs, rows):
        ax.annotate("%.2f %%" % r["proxies_pct"], (x, max(r["rx_proxy_pct"], r["tx_proxy_pct"], 0.01)),
                    textcoords="offset points", xytext=(0, 4), ha="center", fontsize=8)
    ax.axhline(2.0, color="grey", linestyle="--", linewidth=1, label="target: 2 % of a core")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(["--poll %s" % m for m in modes])
    ax.set_yscale("log")
    ax.set_ylabel("CPU, % of one core")
    dev = rows[0].get("device", "")
    ax.set_title("an idle queue (sw, echo at 1 frame/s)%s" % (" on " + dev if dev else ""))
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    return [save(fig, out, "idle_cpu", fmt)]


# ----------------------------------------------------- launch patterns --

def plot_launch(doc, out, fmt):
    pats = [p for p in doc.get("patterns", []) if p.get("mpps_median", 0) > 0]
    if not pats:
        return []
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    labels = ["%s%s" % (p["name"], "" if p.get("key") == "persistent" or p["burst"] <= 1 else " (%d)" % p["burst"])
              for p in pats]
    vals = [p["mpps_median"] for p in pats]
    lo = [p["mpps_median"] - p.get("mpps_min", p["mpps_median"]) for p in pats]
    hi = [p.get("mpps_max", p["mpps_median"]) - p["mpps_median"] for p in pats]
    colors = ["tab:green" if p.get("key") == "persistent" else "tab:gray" if p["key"].startswith("graph")
              else "tab:blue" for p in pats]
    bars = ax.bar(range(len(pats)), vals, yerr=[lo, hi], color=colors, capsize=3)
    for b, p in zip(bars, pats):
        note = "%.3g" % p["mpps_median"]
        if "persistent_ratio" in p:
            note += "\n(%.1fx slower)" % p["persistent_ratio"]
        ax.annotate(note, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom",
                    fontsize=7, textcoords="offset points", xytext=(0, 2))
    ax.set_xticks(range(len(pats)))
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("Mpps (median; bars: min-max)")
    ax.set_title("same per-frame work, four launch patterns, %s B%s" % (doc.get("size", "?"), title_suffix(doc)))
    ax.grid(True, axis="y", which="both", alpha=0.3)
    return [save(fig, out, "launch_patterns", fmt)]


# -------------------------------------------------------------- peers --

def peer_bars(ax, rows, ylabel):
    labels = ["%s\n%s %s" % (r["contestant"], r["mode"], r["socket"]) for r in rows]
    colors = ["tab:green" if r["contestant"].startswith("gnio") else "tab:orange" for r in rows]
    # Hatched: the contestant kept up with the generator (its ceiling is
    # higher); dotted: its zero-loss rate is within the search's resolution
    # of what the generator could offer (bounded by it too).
    hatches = ["//" if r.get("sender_bound") else ".." if r.get("at_ceiling") else "" for r in rows]
    bars = ax.bar(range(len(rows)), [r["mpps"] for r in rows], color=colors, hatch=hatches)
    for b, r in zip(bars, rows):
        ax.annotate("%.3f" % r["mpps"], (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                    va="bottom", fontsize=7, textcoords="offset points", xytext=(0, 2))
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


def plot_peers(doc, out, fmt):
    panels = [(rows, label) for rows, label in (
        ([r for r in doc.get("rows", []) if r.get("mpps") is not None],
         "Mpps delivered over the generator's send time"),
        ([r for r in doc.get("search", []) if r.get("mpps") is not None],
         "highest zero-loss Mpps (RFC 2544-style search)")) if rows]
    if not panels:
        return []
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 4.8 * len(panels)), squeeze=False)
    for ax, (rows, label) in zip(axes[:, 0], panels):
        peer_bars(ax, rows, label)
    gens, queues = doc.get("generators", 1), doc.get("queues", 1)
    axes[0, 0].set_title("veth, %s B frames, %s: gnio (green) vs DPDK testpmd (orange)\n%s%s\nhatched: "
                         "sender-bound; dotted: at the generator's ceiling" % (
                             doc.get("size", "?"), ("one generator" if gens == 1 else "%d generators" % gens) +
                             (", %d queues" % queues if queues > 1 else ""),
                             doc.get("machine", ""),
                             ", load avg %s" % doc["loadavg_start"] if doc.get("loadavg_start") else ""),
                         fontsize=9)
    return [save(fig, out, "peers", fmt)]


# ------------------------------------------------------------- tables --

def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def matrix_table(rows):
    body = [(w, size, q, mem.upper(), extra, "%.2f" % run["mpps_steady"], "%.2f" % run.get("gbps_steady", 0),
             run.get("balanced", "?")) for w, size, q, mem, extra, run in rows]
    return md_table(["wire", "size", "queues", "pool", "options", "Mpps steady", "Gbit/s steady", "balanced"], body)


def latency_table(docs):
    body = []
    for name, d in docs:
        body.append((name, d.get("device_name", d.get("device", "?")), d.get("app", "?"), d.get("size", "?"),
                     d.get("recv_scope", "?"), *("%.2f" % d[k] if k in d else "-" for k in
                                                 ("min_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us")),
                     d.get("lost", "?")))
    return md_table(["file", "device", "app", "size", "recv scope", "min µs", "p50 µs", "p90 µs", "p99 µs",
                     "p99.9 µs", "max µs", "lost"], body)


def launch_table(doc):
    body = []
    for p in doc.get("patterns", []):
        ratio = "%.1f×" % p["persistent_ratio"] if "persistent_ratio" in p else "-"
        target = ("≥ %g× %s" % (p["target_ratio"], "met" if p.get("target_met") else "NOT met")
                  if "target_ratio" in p else "")
        body.append((p["name"], p["burst"] if p.get("key") != "persistent" else "-",
                     "%.3f [%.3f – %.3f]" % (p["mpps_median"], p["mpps_min"], p["mpps_max"]), ratio, target,
                     "equal" if p.get("counts_equal") else "DIFFER: " + p.get("why", "")))
    head = "%s, %s B %s frames, %s per run, median of %s runs\n\n" % (
        doc.get("gpu_name", doc.get("device", "?")), doc.get("size"), doc.get("proto"), doc.get("frames"),
        doc.get("reps"))
    return head + md_table(["pattern", "burst", "Mpps median [min – max]", "persistent is", "target", "counts"],
                           body)


def peers_table(doc):
    body = []
    for r in doc.get("rows", []):
        if r.get("mpps") is None:
            body.append((r["mode"], r["socket"], r["contestant"], "failed", "", "", ""))
            continue
        body.append((r["mode"], r["socket"], r["contestant"], "%.3f" % r["mpps"],
                     " / ".join("%.3f" % v for v in r.get("mpps_runs", [])), "%.1f %%" % r["delivered_pct"],
                     "sender-bound" if r.get("sender_bound") else ""))
    t = md_table(["mode", "socket", "contestant", "Mpps", "runs", "delivered", "note"], body)
    rat = [(q["mode"], q["socket"], q["gnio"], q["peer"], "%.2f" % q["ratio"]) for q in doc.get("ratios", [])]
    text = "%s; %s; pinned %s; load average %s → %s" % (
        doc.get("machine", "?"), doc.get("dpdk", "?"), doc.get("pinned"), doc.get("loadavg_start", "?"),
        doc.get("loadavg_end", "?"))
    if body:
        text += "\n\n%s\n\n%s" % (t, md_table(["mode", "socket", "gnio", "peer", "gnio / peer"], rat))
    search = doc.get("search", [])
    if search:
        body = [(r["mode"], r["socket"], r["contestant"],
                 "failed" if r.get("mpps") is None else "%.3f" % r["mpps"],
                 "%.3f" % r["ceiling_mpps"] if "ceiling_mpps" in r else "", r["trials"],
                 "sender-bound" if r.get("sender_bound") else "") for r in search]
        rat = [(q["mode"], q["socket"], q["gnio"], q["peer"], "%.2f" % q["ratio"])
               for q in doc.get("search_ratios", [])]
        text += "\n\nZero-loss rate (%s s trials):\n\n%s\n\n%s" % (
            search[0].get("trial_s", "?"),
            md_table(["mode", "socket", "contestant", "zero-loss Mpps", "ceiling Mpps", "trials", "note"], body),
            md_table(["mode", "socket", "gnio", "peer", "gnio / peer"], rat))
    return text


def main():
    ap = argparse.ArgumentParser(description="markdown tables and plots of a bench run's JSON")
    ap.add_argument("results", help="a bench results folder (bench/run.sh)")
    ap.add_argument("--out", help="where the images go (default: RESULTS/plots)")
    ap.add_argument("--format", choices=["png", "svg"], default="png")
    ap.add_argument("--tables-only", action="store_true", help="write tables.md, no plots")
    a = ap.parse_args()
    if not os.path.isdir(a.results):
        print("plot: %s is not a folder" % a.results)
        return 2
    have_plt = not a.tables_only and load_matplotlib()
    out = a.out or os.path.join(a.results, "plots")
    written, sections, errors, inputs = [], [], 0, 0

    def attempt(what, fn):
        nonlocal errors
        try:
            fn()
        except (ValueError, KeyError, TypeError, OSError) as e:
            errors += 1
            print("plot: %s: %s" % (what, e))

    def section(title, text):
        sections.append("## %s\n\n%s\n" % (title, text))

    if have_plt:
        os.makedirs(out, exist_ok=True)
    m = os.path.join(a.results, "matrix.jsonl")
    if os.path.exists(m):
        inputs += 1

        def do_matrix():
            rows = matrix_rows(m)
            section("gnio run matrix (matrix.jsonl)", matrix_table(rows))
            if have_plt:
                dev = next((r[5].get("device_name") or r[5].get("device") for r in rows
                            if r[5].get("device_name") or r[5].get("device")), "")
                written.extend(plot_matrix(rows, out, a.format, " (%s)" % dev if dev else ""))
        attempt("matrix.jsonl", do_matrix)
    lats = sorted(glob.glob(os.path.join(a.results, "latency*.json")))
    if lats:
        inputs += 1

        def do_latency():
            docs = [(os.path.basename(p), last_json_line(p)) for p in lats]
            section("echo round trip (latency*.json)", latency_table(docs))
            if have_plt:
                written.extend(plot_latency(docs, out, a.format))
        attempt("latency", do_latency)
    for name, title, load, table, plot in (
            ("idle_cpu.jsonl", "idle queue CPU", idle_rows, idle_table, plot_idle),
            ("launch_patterns.json", "launch patterns", last_json_line, launch_table, plot_launch),
            ("peers.json", "veth peers", last_json_line, peers_table, plot_peers)):
        p = os.path.join(a.results, name)
        if not os.path.exists(p):
            continue
        inputs += 1

        def do_one(p=p, name=name, title=title, load=load, table=table, plot=plot):
            doc = load(p)
            if isinstance(doc, dict) and doc.get("skipped"):
                section("%s (%s)" % (title, name), "skipped: %s" % doc.get("reason", "?"))
                return
            section("%s (%s)" % (title, name), table(doc))
            if have_plt:
                written.extend(plot(doc, out, a.format))
        attempt(name, do_one)
    if not inputs:
        print("plot: nothing to read in %s (no matrix.jsonl, latency*.json, idle_cpu.jsonl, launch_patterns.json"
              " or peers.json)"
              % a.results)
        return 1
    tables = os.path.join(a.results, "tables.md")
    with open(tables, "w") as f:
        f.write("# bench results: %s\n\n" % os.path.basename(os.path.abspath(a.results)))
        f.write("\n".join(sections))
    print(tables)
    for w in written:
        print(w)
    if errors:
        return 1
    if not have_plt and not a.tables_only:
        print("plot: no plots: matplotlib is missing (Debian: python3-matplotlib; scripts/bootstrap --bench)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
