//! A rocpd database as rocprofv3 would have written it for a simulated run: built from what
//! the simulator's test tool (`librocprof_sim_test_tool.so`, loaded beside ours) logged of
//! every record and callback, into the released schema's tables (`rocpd_<name>_<uuid>`, their
//! columns as in ROCm's `rocpd_tables.sql`, and the unsuffixed views). Test infrastructure:
//! only what the converter reads is filled; the rest of a real database is left out.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{params, Connection};
use serde_json::{json, Value};

const TABLES: &[(&str, &str)] = &[
    (
        "metadata",
        "id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL",
    ),
    (
        "string",
        "id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL UNIQUE",
    ),
    (
        "info_node",
        "id INTEGER PRIMARY KEY, guid TEXT, hash BIGINT, machine_id TEXT, name TEXT, \
         system_name TEXT, hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, \
         domain_name TEXT",
    ),
    (
        "info_process",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, ppid INTEGER, \
         pid INTEGER NOT NULL, name TEXT, init BIGINT, fini BIGINT, start BIGINT, \"end\" BIGINT, \
         command TEXT, environment JSONB DEFAULT '{}', extdata JSONB DEFAULT '{}'",
    ),
    (
        "info_thread",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, ppid INTEGER, \
         pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT, start BIGINT, \"end\" BIGINT, \
         extdata JSONB DEFAULT '{}'",
    ),
    (
        "info_agent",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, \
         type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, \
         uuid INTEGER, name TEXT, generic_name TEXT, model_name TEXT, vendor_name TEXT, \
         product_name TEXT, extdata JSONB DEFAULT '{}'",
    ),
    (
        "info_kernel_symbol",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, \
         code_object_id INTEGER NOT NULL, kernel_name TEXT, display_name TEXT, \
         kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER, \
         group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER, \
         arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB DEFAULT '{}'",
    ),
    (
        "track",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER, tid INTEGER, \
         name_id INTEGER, extdata JSONB DEFAULT '{}'",
    ),
    (
        "event",
        "id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER, stack_id INTEGER, \
         parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB DEFAULT '{}', \
         line_info JSONB DEFAULT '{}', extdata JSONB DEFAULT '{}'",
    ),
    (
        "arg",
        "id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER NOT NULL, position INTEGER NOT NULL, \
         type TEXT NOT NULL, name TEXT NOT NULL, value TEXT, extdata JSONB DEFAULT '{}'",
    ),
    (
        "region",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, \
         tid INTEGER NOT NULL, start BIGINT NOT NULL, \"end\" BIGINT NOT NULL, \
         name_id INTEGER NOT NULL, event_id INTEGER, extdata JSONB DEFAULT '{}'",
    ),
    (
        "sample",
        "id INTEGER PRIMARY KEY, guid TEXT, track_id INTEGER NOT NULL, timestamp BIGINT NOT NULL, \
         event_id INTEGER, extdata JSONB DEFAULT '{}'",
    ),
    (
        "kernel_dispatch",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, \
         tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, \
         dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, \
         start BIGINT NOT NULL, \"end\" BIGINT NOT NULL, private_segment_size INTEGER, \
         group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, \
         workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL, \
         grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, grid_size_z INTEGER NOT NULL, \
         region_name_id INTEGER, event_id INTEGER, extdata JSONB DEFAULT '{}'",
    ),
    (
        "memory_copy",
        "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, \
         tid INTEGER, start BIGINT NOT NULL, \"end\" BIGINT NOT NULL, name_id INTEGER NOT NULL, \
         dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, \
         size INTEGER NOT NULL, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, \
         event_id INTEGER, extdata JSONB DEFAULT '{}'",
    ),
];

fn u(v: &Value) -> i64 {
    v.as_u64().map_or(0, |x| x as i64)
}

/// One run's tables, suffixed `_<uuid>`.
struct Writer<'a> {
    conn: &'a Connection,
    sfx: String,
    strings: HashMap<String, i64>,
    threads: HashMap<i64, i64>,
    nid: i64,
    pid_row: i64,
}

impl Writer<'_> {
    fn t(&self, name: &str) -> String {
        format!("rocpd_{name}{}", self.sfx)
    }

    fn string(&mut self, s: &str) -> i64 {
        if let Some(id) = self.strings.get(s) {
            return *id;
        }
        let t = self.t("string");
        self.conn
            .execute(&format!("INSERT INTO {t} (string) VALUES (?1)"), [s])
            .unwrap();
        let id = self.conn.last_insert_rowid();
        self.strings.insert(s.to_string(), id);
        id
    }

    fn thread(&mut self, tid: i64) -> i64 {
        if let Some(id) = self.threads.get(&tid) {
            return *id;
        }
        let t = self.t("info_thread");
        self.conn
            .execute(
                &format!("INSERT INTO {t} (nid, pid, tid) VALUES (?1, ?2, ?3)"),
                params![self.nid, self.pid_row, tid],
            )
            .unwrap();
        let id = self.conn.last_insert_rowid();
        self.threads.insert(tid, id);
        id
    }

    fn event(&mut self, category: &str, corr: i64, ext: i64, extdata: &Value) -> i64 {
        let cat = self.string(category);
        let t = self.t("event");
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {t} (category_id, stack_id, parent_stack_id, correlation_id, extdata) \
                     VALUES (?1, ?2, 0, ?3, ?4)"
                ),
                params![cat, corr, ext, extdata.to_string()],
            )
            .unwrap();
        self.conn.last_insert_rowid()
    }
}

/// Appends one run (its own `uuid`) made from the test tool's log `log` to the database at
/// `db`; creates the unsuffixed views over the first run.
pub fn write_run(db: &Path, log: &Path, uuid: &str, hostname: &str) {
    let conn = Connection::open(db).unwrap();
    let sfx = format!("_{uuid}");
    for (name, cols) in TABLES {
        conn.execute(&format!("CREATE TABLE rocpd_{name}{sfx} ({cols})"), [])
            .unwrap();
        conn.execute(
            &format!("CREATE VIEW IF NOT EXISTS rocpd_{name} AS SELECT * FROM rocpd_{name}{sfx}"),
            [],
        )
        .unwrap();
    }
    let lines: Vec<Value> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let pid = lines
        .iter()
        .find(|e| e["ev"] == "configure")
        .map_or(0, |e| u(&e["pid"]));
    conn.execute(
        &format!("INSERT INTO rocpd_metadata{sfx} (tag, value) VALUES ('schema_version', '3')"),
        [],
    )
    .unwrap();
    conn.execute(
        &format!(
            "INSERT INTO rocpd_info_node{sfx} (hash, machine_id, hostname) VALUES (1, ?1, ?2)"
        ),
        params![uuid, hostname],
    )
    .unwrap();
    let nid = conn.last_insert_rowid();
    conn.execute(
        &format!("INSERT INTO rocpd_info_process{sfx} (nid, pid) VALUES (?1, ?2)"),
        params![nid, pid],
    )
    .unwrap();
    let pid_row = conn.last_insert_rowid();
    let mut w = Writer {
        conn: &conn,
        sfx,
        strings: HashMap::new(),
        threads: HashMap::new(),
        nid,
        pid_row,
    };
    conn.execute("BEGIN", []).unwrap();

    // Agents: row ids stand in for handles.
    let mut agent_row: HashMap<i64, i64> = HashMap::new();
    for a in lines.iter().filter(|e| e["ev"] == "agent") {
        let ty = if u(&a["type"]) == 2 { "GPU" } else { "CPU" };
        let t = w.t("info_agent");
        conn.execute(
            &format!(
                "INSERT INTO {t} (nid, pid, type, absolute_index, logical_index, type_index, name, \
                 model_name, vendor_name, product_name, extdata) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ),
            params![
                nid,
                pid_row,
                ty,
                u(&a["node_id"]),
                u(&a["logical_node_id"]),
                u(&a["logical_node_type_id"]),
                a["name"].as_str().unwrap_or(""),
                a["model_name"].as_str().unwrap_or(""),
                a["vendor_name"].as_str().unwrap_or(""),
                a["product_name"].as_str().unwrap_or(""),
                a.to_string(),
            ],
        )
        .unwrap();
        agent_row.insert(u(&a["id"]), conn.last_insert_rowid());
    }
    let agent = |h: &Value| agent_row.get(&u(h)).copied().unwrap_or(0);

    // Kernel symbols (the SDK's kernel id is the row id).
    for s in lines.iter().filter(|e| {
        e["ev"] == "cb"
            && e["op_name"] == "CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER"
            && e["phase"] == 1
    }) {
        let t = w.t("info_kernel_symbol");
        conn.execute(
            &format!(
                "INSERT OR IGNORE INTO {t} (id, nid, pid, code_object_id, kernel_name, display_name, \
                 group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10)"
            ),
            params![
                u(&s["kernel_id"]),
                nid,
                pid_row,
                u(&s["co_id"]),
                s["kernel_name"].as_str().unwrap_or(""),
                u(&s["group_segment_size"]),
                u(&s["private_segment_size"]),
                u(&s["sgpr_count"]),
                u(&s["arch_vgpr_count"]),
                u(&s["accum_vgpr_count"]),
            ],
        )
        .unwrap();
    }

    // Per correlation id: the call's arguments and the SDK stream id current on its thread
    // (HIP_STREAM_SET brackets each call that names a stream); roctx texts.
    let mut args: HashMap<i64, serde_json::Map<String, Value>> = HashMap::new();
    let mut stream_of: HashMap<i64, i64> = HashMap::new();
    let mut current: HashMap<i64, i64> = HashMap::new();
    let mut message: HashMap<i64, String> = HashMap::new();
    for e in lines.iter().filter(|e| e["ev"] == "cb") {
        let tid = u(&e["tid"]);
        match (e["kind_name"].as_str(), u(&e["phase"])) {
            (Some("HIP_STREAM"), 1) if e["op_name"] == "HIP_STREAM_SET" => {
                current.insert(tid, u(&e["stream_id"]));
            }
            (Some("HIP_STREAM"), 2) if e["op_name"] == "HIP_STREAM_SET" => {
                current.remove(&tid);
            }
            (Some("HIP_RUNTIME_API"), 1) => {
                let corr = u(&e["corr"]);
                if let Some(a) = e["args"].as_object() {
                    args.insert(corr, a.clone());
                }
                stream_of.insert(corr, current.get(&tid).copied().unwrap_or(0));
            }
            (Some("MARKER_CORE_RANGE_API"), 1) => {
                if let Some(m) = e["message"].as_str() {
                    message.insert(u(&e["corr"]), m.to_string());
                }
            }
            _ => {}
        }
    }

    for r in lines.iter().filter(|e| e["ev"] == "rec") {
        let corr = u(&r["corr"]);
        let ext = u(&r["ext"]);
        let tid = w.thread(u(&r["tid"]));
        let kind = r["kind_name"].as_str().unwrap_or("");
        let op = r["op_name"].as_str().unwrap_or("").to_string();
        match kind {
            "HIP_RUNTIME_API" => {
                let ev = w.event(kind, corr, ext, &json!({}));
                let name = w.string(&op);
                let t = w.t("region");
                conn.execute(
                    &format!(
                        "INSERT INTO {t} (nid, pid, tid, start, \"end\", name_id, event_id) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                    ),
                    params![nid, pid_row, tid, u(&r["start"]), u(&r["end"]), name, ev],
                )
                .unwrap();
                for (i, (k, v)) in args.get(&corr).into_iter().flatten().enumerate() {
                    let t = w.t("arg");
                    conn.execute(
                        &format!(
                            "INSERT INTO {t} (event_id, position, type, name, value) \
                             VALUES (?1, ?2, '', ?3, ?4)"
                        ),
                        params![ev, i as i64, k, v.as_str().unwrap_or("")],
                    )
                    .unwrap();
                }
            }
            "MARKER_CORE_RANGE_API" => {
                let text = message.get(&corr).cloned().unwrap_or_default();
                let ev = w.event(kind, corr, ext, &json!({ "message": text }));
                if op == "roctxMarkA" {
                    let name = w.string(&op);
                    let t = w.t("track");
                    conn.execute(
                        &format!(
                            "INSERT INTO {t} (nid, pid, tid, name_id) VALUES (?1, ?2, ?3, ?4)"
                        ),
                        params![nid, pid_row, tid, name],
                    )
                    .unwrap();
                    let track = conn.last_insert_rowid();
                    let t = w.t("sample");
                    conn.execute(
                        &format!(
                            "INSERT INTO {t} (track_id, timestamp, event_id) VALUES (?1, ?2, ?3)"
                        ),
                        params![track, u(&r["start"]), ev],
                    )
                    .unwrap();
                } else {
                    let name = w.string(&op);
                    let t = w.t("region");
                    conn.execute(
                        &format!(
                            "INSERT INTO {t} (nid, pid, tid, start, \"end\", name_id, event_id) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                        ),
                        params![nid, pid_row, tid, u(&r["start"]), u(&r["end"]), name, ev],
                    )
                    .unwrap();
                }
            }
            "KERNEL_DISPATCH" => {
                let ev = w.event(kind, corr, ext, &json!({}));
                let g = |k: &str, i: usize| r[k][i].as_u64().unwrap_or(0) as i64;
                let t = w.t("kernel_dispatch");
                conn.execute(
                    &format!(
                        "INSERT INTO {t} (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, \
                         stream_id, start, \"end\", private_segment_size, group_segment_size, \
                         workgroup_size_x, workgroup_size_y, workgroup_size_z, \
                         grid_size_x, grid_size_y, grid_size_z, event_id) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                         ?16, ?17, ?18, ?19)"
                    ),
                    params![
                        nid,
                        pid_row,
                        tid,
                        agent(&r["agent"]),
                        u(&r["kernel_id"]),
                        u(&r["dispatch_id"]),
                        u(&r["queue"]),
                        stream_of.get(&corr).copied().unwrap_or(0),
                        u(&r["start"]),
                        u(&r["end"]),
                        u(&r["private_segment_size"]),
                        u(&r["group_segment_size"]),
                        g("workgroup", 0),
                        g("workgroup", 1),
                        g("workgroup", 2),
                        g("grid", 0),
                        g("grid", 1),
                        g("grid", 2),
                        ev,
                    ],
                )
                .unwrap();
            }
            "MEMORY_COPY" => {
                let ev = w.event(kind, corr, ext, &json!({}));
                let name = w.string(&op);
                let t = w.t("memory_copy");
                conn.execute(
                    &format!(
                        "INSERT INTO {t} (nid, pid, tid, start, \"end\", name_id, dst_agent_id, \
                         src_agent_id, size, stream_id, event_id) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                    ),
                    params![
                        nid,
                        pid_row,
                        tid,
                        u(&r["start"]),
                        u(&r["end"]),
                        name,
                        agent(&r["dst_agent"]),
                        agent(&r["src_agent"]),
                        u(&r["bytes"]),
                        stream_of.get(&corr).copied().unwrap_or(0),
                        ev,
                    ],
                )
                .unwrap();
            }
            _ => {}
        }
    }
    conn.execute("COMMIT", []).unwrap();
}
