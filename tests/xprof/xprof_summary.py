#!/usr/bin/env python3
"""Summarise an .xplane.pb as real xprof sees it, as one JSON object on stdout.

Test client for rocprof-xplane (see shared reference "xprof as a test client"): uses xprof's
offline conversion API only (no server, no port), on a private copy of the file laid out as
<tmp>/plugins/profile/<run>/<host>.xplane.pb so xprof's caches can never be stale or shared.

usage: xprof_summary.py FILE [--host NAME] [--raw-dir DIR]
       xprof_summary.py --multi FILE FILE...
       xprof_summary.py --views FILE
       xprof_summary.py --pod FILE FILE...
       xprof_summary.py --merged FILE...
  --host     host part of the copied file name (default: the input's own host part)
  --raw-dir  also save each tool's raw output there, for debugging
  --multi    copy every FILE (keeping its name) into ONE run directory, as the processes of one
             job write them, and report the hosts xprof lists, kernel_stats over ALL_HOSTS and
             the trace viewer per host
  --views    the step and device views of one file: overview_page's steps, input_pipeline_analyzer's
             steps, pod_viewer's steps, roofline_model's peaks, perf_counters' rows, hlo_stats,
             op_profile, framework_op_stats and the trace viewer's rows and flows
  --pod      every FILE in one run, as --multi: pod_viewer over all hosts, steps per host
  --merged   copy every FILE into ONE run directory and open the trace viewer on all of them at
             once, as xprof's UI does when several hosts are selected (one timeline); report its
             time span and every complete event (process, row, name, ts and dur in µs as xprof
             gives them)
"""

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile


def convert(path, tool, params=None):
    """Runs one xprof tool on one path or a list of paths; returns (data, error text or None)."""
    from xprof.convert import _pywrap_profiler_plugin, raw_to_tool_data

    errors = []

    def call_plugin(paths, tool_name, options):
        out, ok = _pywrap_profiler_plugin.xspace_to_tools_data(paths, tool_name, options)
        if not ok:
            errors.append(out.decode(errors="replace") if isinstance(out, bytes) else str(out))
        return out, ok

    opts = {"use_saved_result": False}
    opts.update(params or {})
    paths = path if isinstance(path, list) else [path]
    data, _ = raw_to_tool_data.xspace_to_tool_data(paths, tool, opts, call_plugin)
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    return data, (errors[0] if errors else None)


def summarise_trace(data):
    doc = json.loads(data)
    events = doc.get("traceEvents", [])
    processes, threads = {}, collections.defaultdict(dict)
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e.get("args", {}).get("name", "")
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[e["pid"]][e["tid"]] = e.get("args", {}).get("name", "")
    complete = [e for e in events if e.get("ph") == "X"]
    per_process = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for e in complete:
        pname = processes.get(e["pid"], str(e["pid"]))
        tname = threads[e["pid"]].get(e.get("tid"), str(e.get("tid")))
        per_process[pname][tname][e.get("name", "")] += 1
    flows = collections.defaultdict(lambda: {"out": 0, "in": 0, "cat": None, "events": []})
    for e in complete:
        if "bind_id" not in e:
            continue
        f = flows[str(e["bind_id"])]
        f["out"] += 1 if e.get("flow_out") else 0
        f["in"] += 1 if e.get("flow_in") else 0
        f["cat"] = e.get("cat", f["cat"])
        f["events"].append({
            "process": processes.get(e["pid"], str(e["pid"])),
            "name": e.get("name", ""),
            "ts": e.get("ts"),
            "correlation_id": (e.get("args") or {}).get("correlation_id"),
            "thread": threads[e["pid"]].get(e.get("tid"), str(e.get("tid"))),
            "dependency_wait_corr_id": (e.get("args") or {}).get("dependency_wait_corr_id"),
        })
    # xprof-derived rows ("XLA Modules - from #0", "XLA Ops - from #0", "Framework Ops - from #2",
    # …): per process and row, the event count and the events per name.
    derived = collections.defaultdict(dict)
    for pname, rows in per_process.items():
        for tname, names in rows.items():
            if " - from #" in tname:
                derived[pname][tname] = {"events": sum(names.values()), "names": dict(names)}
    return {
        "derived_lines": dict(derived),
        "processes": sorted(processes.values()),
        "pids": {name: pid for pid, name in processes.items()},
        "threads": {processes.get(pid, str(pid)): sorted(t.values()) for pid, t in threads.items()},
        "complete_events": len(complete),
        "events": {p: {t: dict(c) for t, c in ts.items()} for p, ts in per_process.items()},
        "flows": dict(flows),
        "flow_count": len(flows),
        "complete_flows": sum(1 for f in flows.values() if f["out"] > 0 and f["in"] > 0),
        # Counter tracks ("C" events): per process and counter, the points drawn.
        "counter_tracks": counter_tracks(events, processes),
    }


def counter_tracks(events, processes):
    tracks = collections.defaultdict(dict)
    for e in events:
        if e.get("ph") != "C":
            continue
        pname = processes.get(e["pid"], str(e["pid"]))
        points = e.get("entries")
        tracks[pname][e.get("name", "")] = len(points) if isinstance(points, list) else 1
    return dict(tracks)


def summarise_kernel_stats(data):
    """kernel_stats is a gviz DataTable; returns rows as dicts keyed by column label."""
    doc = json.loads(data)
    tables = doc if isinstance(doc, list) else [doc]
    rows = []
    for t in tables:
        cols = [c.get("label") or c.get("id") for c in t.get("cols", [])]
        for r in t.get("rows", []):
            rows.append({col: (cell or {}).get("v") for col, cell in zip(cols, r.get("c", []))})
    occurrences = collections.Counter()
    for r in rows:
        name = r.get("Kernel Name") or r.get("kernel_name") or ""
        occurrences[name] += int(r.get("Occurrences") or r.get("occurrences") or 0)
    op_names = sorted({r.get("Op Name") or "" for r in rows})
    return {"rows": rows, "occurrences": dict(occurrences), "op_names": op_names}


def summarise_framework_op_stats(data):
    """framework_op_stats: occurrences per operation name, device and host side (first table,
    the one that includes IDLE)."""
    doc = json.loads(data)
    tables = doc if isinstance(doc, list) else [doc]
    out = {"device_ops": collections.Counter(), "host_ops": collections.Counter()}
    if not tables:
        return {k: {} for k in out}
    t = tables[0]
    cols = [c.get("label") or c.get("id") for c in t.get("cols", [])]
    for r in t.get("rows", []):
        row = {col: (cell or {}).get("v") for col, cell in zip(cols, r.get("c", []))}
        name = row.get("Operation Name") or ""
        if name == "IDLE":
            continue
        side = "device_ops" if row.get("Host/device") == "Device" else "host_ops"
        out[side][name] += int(row.get("#Occurrences") or 0)
    return {k: dict(v) for k, v in out.items()}


def summarise_overview(data):
    doc = json.loads(data)
    found = {}

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("device_type", "device_core_count", "hardware_type") and k not in found:
                    found[k] = v
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(doc)
    # gviz tables carry run-environment fields in "p" (properties).
    tables = doc if isinstance(doc, list) else [doc]
    for t in tables:
        if isinstance(t, dict):
            for k, v in (t.get("p") or {}).items():
                found.setdefault(k, v)
    return found


def gviz_rows(table):
    """A gviz DataTable's rows as dicts keyed by column id."""
    cols = [c.get("id") or c.get("label") for c in table.get("cols", [])]
    return [{col: (cell or {}).get("v") for col, cell in zip(cols, r.get("c", []))}
            for r in table.get("rows", [])]


def summarise_steps_table(doc):
    """overview_page / input_pipeline_analyzer: the step table (the one with a `stepnum`
    column) as [{step, step_ms, compute_ms}] and its summary properties."""
    tables = doc if isinstance(doc, list) else [doc]
    for t in tables:
        if isinstance(t, dict) and any(c.get("id") == "stepnum" for c in t.get("cols", [])):
            steps = [{"step": r.get("stepnum"), "step_ms": r.get("stepTimeMs"),
                      "compute_ms": r.get("deviceComputeTimeMs")} for r in gviz_rows(t)]
            return {"steps": steps, "p": t.get("p", {})}
    return {"steps": [], "p": {}}


def summarise_pod_viewer(data):
    """pod_viewer: per host, its steps as [step number, duration in us]."""
    doc = json.loads(data)
    hosts = collections.defaultdict(list)
    maps = doc.get("podStatsSequence", {}).get("podStatsMap", [])
    for m in maps:
        for rec in m.get("podStatsPerCore", {}).values():
            hosts[rec.get("hostName", "")].append([m.get("stepNum"), rec.get("totalDurationUs")])
    return {"steps": len(maps), "hosts": dict(hosts), "device_type": doc.get("deviceType")}


def summarise_roofline(data):
    doc = json.loads(data)
    tables = doc if isinstance(doc, list) else [doc]
    out = {}
    for t in tables:
        for k, v in (t.get("p") or {}).items():
            if k.startswith("peak_"):
                out[k] = float(v)
    return out


def summarise_hlo_stats(data):
    rows = gviz_rows(json.loads(data))
    return [{"program_id": r.get("program_id"), "category": r.get("category"),
             "name": r.get("hlo_op_name"), "occurrences": r.get("occurrences")} for r in rows]


def summarise_op_profile(data):
    """op_profile by program: each program's categories and the ops under them."""
    doc = json.loads(data)

    def walk(node):
        return {c.get("name", ""): walk(c) for c in node.get("children", [])}

    return walk(doc.get("byProgram", {}))


def views(path):
    """The step and device views of one private copy."""
    out = {"errors": {}}
    for key, tool, fn in [
        ("overview", "overview_page", lambda d: summarise_steps_table(json.loads(d))),
        ("input_pipeline", "input_pipeline_analyzer", lambda d: summarise_steps_table(json.loads(d))),
        ("pod_viewer", "pod_viewer", summarise_pod_viewer),
        ("roofline", "roofline_model", summarise_roofline),
        ("perf_counters", "perf_counters", lambda d: gviz_rows(json.loads(d))),
        ("hlo_stats", "hlo_stats", summarise_hlo_stats),
        ("op_profile", "op_profile", summarise_op_profile),
        ("framework_op_stats", "framework_op_stats", summarise_framework_op_stats),
        ("trace", "trace_viewer@", summarise_trace),
    ]:
        data, err = convert(path, tool)
        if data is None:
            out["errors"][key] = err or "conversion returned no data"
            continue
        out[key] = fn(data)
    trace = out.pop("trace", None)
    if trace is not None:
        out["counter_tracks"] = trace["counter_tracks"]
        # Rows per process with their event counts (stream rows and the rows xprof derives),
        # and the flows per category: the full event lists are left out.
        out["rows"] = {p: {t: sum(n.values()) for t, n in ts.items()}
                       for p, ts in trace["events"].items()}
        cats = collections.Counter()
        for f in trace["flows"].values():
            if f["out"] > 0 and f["in"] > 0:
                cats[f["cat"] or ""] += 1
        out["complete_flows"] = dict(cats)
    return out


def with_private_run(files, body):
    """Copies `files` (keeping their names) into one fresh run directory and calls body(paths)."""
    work = tempfile.mkdtemp(prefix="xprof-summary-")
    try:
        run_dir = os.path.join(work, "plugins", "profile", "run")
        os.makedirs(run_dir)
        paths = []
        for f in files:
            dst = os.path.join(run_dir, os.path.basename(f))
            shutil.copyfile(f, dst)
            paths.append(dst)
        return body(paths)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def host_of(filename):
    base = os.path.basename(filename)
    return base[: -len(".xplane.pb")] if base.endswith(".xplane.pb") else base


def main_multi(files):
    from xprof import profile_plugin

    work = tempfile.mkdtemp(prefix="xprof-summary-")
    try:
        run_dir = os.path.join(work, "plugins", "profile", "run")
        os.makedirs(run_dir)
        paths = []
        for f in files:
            dst = os.path.join(run_dir, os.path.basename(f))
            shutil.copyfile(f, dst)
            paths.append(dst)
        names = sorted(os.listdir(run_dir))
        out = {
            "hosts": list(profile_plugin.hosts_from_xplane_filenames(names, "kernel_stats")),
            "errors": {},
            "per_host": {},
        }
        data, err = convert(paths, "kernel_stats")
        if data is None:
            out["errors"]["kernel_stats"] = err or "conversion returned no data"
        else:
            out["kernel_stats_all_hosts"] = summarise_kernel_stats(data)
        for p in paths:
            data, err = convert(p, "trace_viewer@")
            if data is None:
                out["errors"]["trace:" + host_of(p)] = err or "conversion returned no data"
            else:
                t = summarise_trace(data)
                out["per_host"][host_of(p)] = {"processes": t["processes"], "flow_count": t["flow_count"],
                                          "complete_flows": t["complete_flows"]}
        json.dump(out, sys.stdout, sort_keys=True)
        sys.stdout.write("\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_json(out):
    json.dump(out, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


def main_pod(files):
    def body(paths):
        data, err = convert(paths, "pod_viewer")
        if data is None:
            return {"errors": {"pod_viewer": err or "conversion returned no data"}}
        return {"errors": {}, "pod_viewer": summarise_pod_viewer(data)}

    print_json(with_private_run(files, body))


def merged_trace(paths):
    """The trace viewer over every path at once: its time span and every complete event."""
    data, err = convert(paths, "trace_viewer@")
    if data is None:
        return {"errors": {"trace": err or "conversion returned no data"}}
    doc = json.loads(data)
    processes, threads = {}, collections.defaultdict(dict)
    for e in doc.get("traceEvents", []):
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e.get("args", {}).get("name", "")
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[e["pid"]][e["tid"]] = e.get("args", {}).get("name", "")
    events = [
        {
            "process": processes.get(e["pid"], str(e["pid"])),
            "row": threads[e["pid"]].get(e.get("tid"), str(e.get("tid"))),
            "name": e.get("name", ""),
            "ts": e.get("ts"),
            "dur": e.get("dur", 0),
        }
        for e in doc.get("traceEvents", [])
        if e.get("ph") == "X"
    ]
    return {"errors": {}, "full_timespan_ms": doc.get("fullTimespan"), "events": events}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--merged":
        return print_json(with_private_run(sys.argv[2:], merged_trace))
    if len(sys.argv) > 1 and sys.argv[1] == "--multi":
        return main_multi(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "--pod":
        return main_pod(sys.argv[2:])
    if len(sys.argv) > 2 and sys.argv[1] == "--views":
        return print_json(with_private_run([sys.argv[2]], lambda paths: views(paths[0])))
    if len(sys.argv) > 2 and sys.argv[1] == "--memory":
        data, err = convert(sys.argv[2], "memory_profile")
        if data is None:
            raise SystemExit(f"memory_profile failed: {err}")
        sys.stdout.write(json.dumps(json.loads(data), sort_keys=True) + "\n")
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--host")
    ap.add_argument("--raw-dir")
    args = ap.parse_args()

    src = os.path.abspath(args.file)
    base = os.path.basename(src)
    host = args.host or host_of(base)
    work = tempfile.mkdtemp(prefix="xprof-summary-")
    try:
        run_dir = os.path.join(work, "plugins", "profile", "run")
        os.makedirs(run_dir)
        path = os.path.join(run_dir, host + ".xplane.pb")
        shutil.copyfile(src, path)

        from xprof.convert import raw_to_tool_data

        out = {"host": host, "tools": list(raw_to_tool_data.xspace_to_tool_names([path]) or []), "errors": {}}
        for key, tool, params, fn in [
            ("trace", "trace_viewer@", {}, summarise_trace),
            ("kernel_stats", "kernel_stats", {}, summarise_kernel_stats),
            ("overview", "overview_page", {}, summarise_overview),
            ("framework_op_stats", "framework_op_stats", {}, summarise_framework_op_stats),
        ]:
            data, err = convert(path, tool, params)
            if args.raw_dir and data is not None:
                os.makedirs(args.raw_dir, exist_ok=True)
                with open(os.path.join(args.raw_dir, key + ".json"), "w") as f:
                    f.write(data)
            if data is None:
                out["errors"][key] = err or "conversion returned no data"
                continue
            out[key] = fn(data)
        json.dump(out, sys.stdout, sort_keys=True)
        sys.stdout.write("\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
