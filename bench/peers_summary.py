#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/peers_summary.py OUT FRAMES SIZE REPS GEN_KIND DUT_GPU DPDK PIN LOAD0
LOAD1 TRIAL_S RES_PCT GENS QUEUES - bench/peers.sh's summary: reads
OUT/peers.jsonl (every fixed-count run) and OUT/peers-search.jsonl (every
search trial), writes OUT/peers.json (rows, ratios, search, search_ratios)
and OUT/peers.md, and prints the tables. Each line is one run_one record:
who, mode, socket, rep, rate_pps, offered, gen_elapsed_s, delivered, lost,
verdict (pass, loss or short) and dut_drops (the contestant's own loss
counters), or failed.
"""
import json, os, platform, statistics, sys, time
out, n, size, reps, gen_kind, dut_gpu, dpdk, pin, load0, load1, trial_s, res_pct, gens, queues = sys.argv[1:15]
def jsonl(name):
    return [json.loads(l) for l in open(os.path.join(out, name)) if l.strip()]
runs, trials = jsonl("peers.jsonl"), jsonl("peers-search.jsonl")
names = {"testpmd-rxonly": "testpmd rxonly", "testpmd-io": "testpmd io", "testpmd-macswap": "testpmd macswap",
         "gnio-sink": "gnio sink", "gnio-run": "gnio run (%s)" % dut_gpu}
key_of = lambda r: (r["who"], r["mode"], r["socket"])
def head(key):
    who, mode, sock = key
    return {"contestant": names.get(who, who), "who": who, "mode": mode, "socket": sock}
def add_drops(dicts):
    total = {}
    for d in dicts:
        for k, v in d.items():
            total[k] = total.get(k, 0) + v
    return total
def lost_named(drops):
    """Of a run's lost frames, those its contestant names: every counter
    but kernel_tx_again, which counts retries, not frames."""
    return sum(v for k, v in drops.items() if k != "kernel_tx_again")
def drops_text(d):
    return ", ".join("%s %d" % kv for kv in sorted(d.items()))
rows = []
for key in dict.fromkeys(map(key_of, runs)):
    ok = [r for r in runs if key_of(r) == key and "failed" not in r]
    row = dict(head(key), runs=len(ok))
    if ok:
        row["mpps"] = statistics.median(r["mpps"] for r in ok)
        row["mpps_runs"] = [round(r["mpps"], 4) for r in ok]
        row["gen_mpps"] = statistics.median(r["gen_mpps"] for r in ok)
        row["delivered_pct"] = 100.0 * statistics.median(r["delivered"] / r["offered"] for r in ok)
        row["sender_bound"] = row["delivered_pct"] >= 99.0
        row["cmd"] = ok[0]["cmd"]
        row["dut_drops"] = add_drops(r.get("dut_drops", {}) for r in ok)
        row["lost"] = sum(r["lost"] for r in ok)
        row["lost_named"] = sum(lost_named(r.get("dut_drops", {})) for r in ok)
    else:
        row["mpps"] = None
        row["failed"] = sorted({r.get("failed", "?") for r in runs if key_of(r) == key})
    rows.append(row)
# The zero-loss search: each trial carries run_one's verdict.
def held(t):
    return t.get("verdict") != "short"
def passed(t):
    return t.get("verdict") == "pass"
def search_once(ts):
    """One search's trials -> (zero-loss pps, ceiling pps, lost % there, sender-bound), or a failure."""
    unpaced = [t for t in ts if t["rate_pps"] == 0 and "failed" not in t]
    if not unpaced or any("failed" in t for t in ts):
        return {"failed": sorted({t.get("failed", "?") for t in ts if "failed" in t}) or ["no unpaced trial"]}
    u = unpaced[0]
    ceiling = u["offered"] / u["gen_elapsed_s"]
    bound = passed(u)
    best = ceiling if bound else max((t["rate_pps"] for t in ts if t["rate_pps"] and passed(t)), default=0)
    # No paced rate lost: only the unpaced trial did, so the zero-loss rate
    # lies between the best pass and the generator's ceiling, within the
    # search's resolution of it. Such a row is bound by what the generator
    # could offer it, like a sender-bound one, and does not rank.
    at_ceiling = not bound and not any(t["rate_pps"] and held(t) and not passed(t) for t in ts)
    return {"pps": best, "ceiling": ceiling, "ceiling_lost_pct": 100.0 * u["lost"] / u["offered"],
            "ceiling_drops": u.get("dut_drops", {}), "at_ceiling": at_ceiling,
            "sender_bound": bound, "cmd": u["cmd"],
            "failed_rates": sorted(t["rate_pps"] for t in ts if t["rate_pps"] and not passed(t) and held(t)),
            "short_rates": sorted(t["rate_pps"] for t in ts if t["rate_pps"] and not held(t))}
search = []
for key in dict.fromkeys(map(key_of, trials)):
    ts = [t for t in trials if key_of(t) == key]
    row = dict(head(key), trials=len(ts), trial_s=float(trial_s), resolution_pct=float(res_pct))
    reps_done = [search_once([t for t in ts if t["rep"] == r]) for r in dict.fromkeys(t["rep"] for t in ts)]
    bad = [x for x in reps_done if "failed" in x]
    if bad:
        row["mpps"] = None
        row["failed"] = sorted({f for x in bad for f in x["failed"]})
    else:
        row["mpps"] = statistics.median(x["pps"] for x in reps_done) / 1e6
        row["mpps_reps"] = [round(x["pps"] / 1e6, 4) for x in reps_done]
        row["ceiling_mpps"] = statistics.median(x["ceiling"] for x in reps_done) / 1e6
        row["ceiling_lost_pct"] = statistics.median(x["ceiling_lost_pct"] for x in reps_done)
        row["ceiling_drops"] = add_drops(x["ceiling_drops"] for x in reps_done)
        # sender-bound: every search found no loss at the generator's full rate
        row["sender_bound"] = all(x["sender_bound"] for x in reps_done)
        row["at_ceiling"] = not row["sender_bound"] and all(x["sender_bound"] or x["at_ceiling"] for x in reps_done)
        row["failed_rates"] = sorted(r for x in reps_done for r in x["failed_rates"])
        row["short_rates"] = sorted(r for x in reps_done for r in x["short_rates"])
        row["cmd"] = reps_done[0]["cmd"]
    search.append(row)
peer_of = {"gnio-sink": ["testpmd-rxonly"], "gnio-run": {"rx": ["testpmd-rxonly"], "fwd": ["testpmd-io", "testpmd-macswap"]}}
def ratios_of(rows):
    ratios = []
    for g in rows:
        if not g["who"].startswith("gnio") or g["mpps"] is None:
            continue
        peers = peer_of[g["who"]]
        peers = peers[g["mode"]] if isinstance(peers, dict) else peers
        for p in rows:
            if p["who"] in peers and p["mode"] == g["mode"] and p["socket"] == g["socket"] and p["mpps"]:
                ratios.append({"mode": g["mode"], "socket": g["socket"], "gnio": g["contestant"],
                               "peer": p["contestant"], "ratio": g["mpps"] / p["mpps"],
                               "gnio_sender_bound": g["sender_bound"], "peer_sender_bound": p["sender_bound"],
                               "gnio_at_ceiling": g.get("at_ceiling", False), "peer_at_ceiling": p.get("at_ceiling", False)})
    return ratios
ratios, search_ratios = ratios_of(rows), ratios_of(search)
doc = {"bench": "peers", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "machine": "%s, %d cores, kernel %s" % (platform.node(), os.cpu_count(), platform.release()),
       "frames": int(n), "size": int(size), "reps": int(reps), "generator": "gnio gen %s" % gen_kind, "generators": int(gens), "queues": int(queues),
       "dpdk": dpdk, "pinned": pin == "1", "loadavg_start": load0, "loadavg_end": load1,
       "rate": "delivered / generator send time", "rows": rows, "ratios": ratios,
       "search": search, "search_ratios": search_ratios}
json.dump(doc, open(os.path.join(out, "peers.json"), "w"), indent=1)
def bound(q):
    notes = []
    for what, key in (("sender-bound", "sender_bound"), ("at the generator's ceiling", "at_ceiling")):
        who = [w for w in ("gnio", "peer") if q.get(w + "_" + key)]
        if who:
            notes.append("%s %s" % (" and ".join(who), what))
    return " (%s)" % "; ".join(notes) if notes else ""
def ratio_lines(ratios):
    out = ["| mode | socket | gnio | peer | gnio / peer |", "| --- | --- | --- | --- | --- |"]
    return out + ["| %s | %s | %s | %s | %.2f%s |" % (q["mode"], q["socket"], q["gnio"], q["peer"], q["ratio"], bound(q))
                  for q in ratios]
lines = []
if rows:
    lines += ["| mode | socket | contestant | Mpps (median) | runs (Mpps) | delivered | generator Mpps | note | lost (named by the contestant) | the contestant's loss counters |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if r["mpps"] is None:
            lines.append("| %s | %s | %s | failed | | | | %s | | |" % (r["mode"], r["socket"], r["contestant"], "; ".join(r["failed"])))
            continue
        lines.append("| %s | %s | %s | %.3f | %s | %.1f %% | %.3f | %s | %d (%d) | %s |" % (
            r["mode"], r["socket"], r["contestant"], r["mpps"], " / ".join("%.3f" % v for v in r["mpps_runs"]),
            r["delivered_pct"], r["gen_mpps"], "sender-bound (kept up)" if r["sender_bound"] else "",
            r["lost"], r["lost_named"], drops_text(r["dut_drops"])))
    lines += [""] + ratio_lines(ratios)
if search:
    if lines:
        lines.append("")
    lines += ["Zero-loss rate (RFC 2544-style search, %s s trials, to %s %% of the ceiling):" % (trial_s, res_pct), "",
              "| mode | socket | contestant | zero-loss Mpps (median) | searches (Mpps) | ceiling Mpps (lost there) | trials | rates that lost (kfps) | loss counters at the ceiling |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in search:
        if r["mpps"] is None:
            lines.append("| %s | %s | %s | failed | | | %d | %s | |" % (r["mode"], r["socket"], r["contestant"], r["trials"],
                                                                   "; ".join(r["failed"])))
            continue
        lines.append("| %s | %s | %s | %.3f%s | %s | %.3f (%.1f %%) | %d | %s | %s |" % (
            r["mode"], r["socket"], r["contestant"], r["mpps"],
            " (sender-bound)" if r["sender_bound"] else " (at the ceiling)" if r["at_ceiling"] else "",
            " / ".join("%.3f" % v for v in r["mpps_reps"]), r["ceiling_mpps"], r["ceiling_lost_pct"], r["trials"],
            "; ".join(filter(None, (
                ", ".join("%d" % (v // 1000) for v in r["failed_rates"]),
                "the generator fell short at %s" % ", ".join("%d" % (v // 1000) for v in r["short_rates"])
                if r["short_rates"] else ""))), drops_text(r["ceiling_drops"])))
    lines += [""] + ratio_lines(search_ratios)
open(os.path.join(out, "peers.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print("peers: %s (%s, %s; load average %s at the start, %s at the end)" % (
    os.path.join(out, "peers.json"), doc["machine"], dpdk or "DPDK ?", load0, load1))
