//! A rocpd database as rocprofv3 would have written it for a simulated run: the run's
//! [`Records`] (what the simulator's test tool logged) in the released schema's tables
//! (`rocpd_<name>_<uuid>`, their columns as in ROCm's `rocpd_tables.sql`, and the unsuffixed
//! views), rows as rocprofv3's rocpd writer fills them. Test infrastructure: only what the
//! converter reads is filled; the rest of a real database is left out.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{params, Connection};
use serde_json::{json, Value};

use super::records::{Head, Records};

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

fn i(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn u(v: &Value) -> i64 {
    v.as_u64().map_or(0, i)
}

/// One run's tables, suffixed `_<uuid>`.
struct Writer<'a> {
    conn: &'a Connection,
    sfx: String,
    strings: HashMap<String, i64>,
    threads: HashMap<u64, i64>,
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

    fn thread(&mut self, tid: u64) -> i64 {
        if let Some(id) = self.threads.get(&tid) {
            return *id;
        }
        let t = self.t("info_thread");
        self.conn
            .execute(
                &format!("INSERT INTO {t} (nid, pid, tid) VALUES (?1, ?2, ?3)"),
                params![self.nid, self.pid_row, i(tid)],
            )
            .unwrap();
        let id = self.conn.last_insert_rowid();
        self.threads.insert(tid, id);
        id
    }

    /// The record's `rocpd_event` row: category = its kind's name, `stack_id` = internal
    /// correlation id, `correlation_id` = external.
    fn event(&mut self, h: &Head, extdata: &Value) -> i64 {
        let cat = self.string(&h.kind_name);
        let t = self.t("event");
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {t} (category_id, stack_id, parent_stack_id, correlation_id, extdata) \
                     VALUES (?1, ?2, 0, ?3, ?4)"
                ),
                params![cat, i(h.corr), i(h.ext), extdata.to_string()],
            )
            .unwrap();
        self.conn.last_insert_rowid()
    }

    /// A call with a duration: a `rocpd_region` row named by its operation.
    fn region(&mut self, h: &Head, ev: i64) {
        let tid = self.thread(h.tid);
        let name = self.string(&h.op_name);
        let t = self.t("region");
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {t} (nid, pid, tid, start, \"end\", name_id, event_id) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                ),
                params![self.nid, self.pid_row, tid, i(h.start), i(h.end), name, ev],
            )
            .unwrap();
    }

    /// A call without a duration: a `rocpd_sample` on its thread's track of the kind.
    fn sample(&mut self, h: &Head, ev: i64) {
        let tid = self.thread(h.tid);
        let name = self.string(&h.kind_name);
        let t = self.t("track");
        self.conn
            .execute(
                &format!("INSERT INTO {t} (nid, pid, tid, name_id) VALUES (?1, ?2, ?3, ?4)"),
                params![self.nid, self.pid_row, tid, name],
            )
            .unwrap();
        let track = self.conn.last_insert_rowid();
        let t = self.t("sample");
        self.conn
            .execute(
                &format!("INSERT INTO {t} (track_id, timestamp, event_id) VALUES (?1, ?2, ?3)"),
                params![track, i(h.start), ev],
            )
            .unwrap();
    }
}

/// Appends one run (its own `uuid`) made from the test tool's log `log` to the database at
/// `db`; creates the unsuffixed views over the first run.
pub fn write_run(db: &Path, log: &Path, uuid: &str, hostname: &str) {
    write(db, &Records::from_log(log, hostname), uuid);
}

/// Appends one run (its own `uuid`) holding `r` to the database at `db`; creates the
/// unsuffixed views over the first run. Each HIP call's arguments are its `rocpd_arg` rows
/// (none for a call whose arguments `r` does not have).
pub fn write(db: &Path, r: &Records, uuid: &str) {
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
    conn.execute(
        &format!("INSERT INTO rocpd_metadata{sfx} (tag, value) VALUES ('schema_version', '3')"),
        [],
    )
    .unwrap();
    conn.execute(
        &format!(
            "INSERT INTO rocpd_info_node{sfx} (hash, machine_id, hostname) VALUES (1, ?1, ?2)"
        ),
        params![uuid, r.hostname],
    )
    .unwrap();
    let nid = conn.last_insert_rowid();
    // rocprofv3 writes the process's start and end as both `init`/`fini` and `start`/`end`;
    // unknown ones stay NULL.
    let time = |t: u64| (t > 0).then_some(i(t));
    conn.execute(
        &format!(
            "INSERT INTO rocpd_info_process{sfx} (nid, pid, init, fini, start, \"end\") \
             VALUES (?1, ?2, ?3, ?4, ?3, ?4)"
        ),
        params![nid, i(r.pid), time(r.init_ns), time(r.fini_ns)],
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

    // Agents: row ids stand in for handles; the SDK's agent record is the row's `extdata`.
    let mut agent_row: HashMap<u64, i64> = HashMap::new();
    for a in &r.agents {
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
        agent_row.insert(a["id"].as_u64().unwrap_or(0), conn.last_insert_rowid());
    }
    let agent = |h: u64| agent_row.get(&h).copied().unwrap_or(0);

    // Kernel symbols (the SDK's kernel id is the row id).
    for s in &r.symbols {
        let t = w.t("info_kernel_symbol");
        conn.execute(
            &format!(
                "INSERT OR IGNORE INTO {t} (id, nid, pid, code_object_id, kernel_name, display_name, \
                 group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9, ?10)"
            ),
            params![
                i(s.kernel_id),
                nid,
                pid_row,
                i(s.code_object_id),
                s.name,
                i(s.group_segment_size),
                i(s.private_segment_size),
                i(s.sgpr_count),
                i(s.arch_vgpr_count),
                i(s.accum_vgpr_count),
            ],
        )
        .unwrap();
    }

    // API records as rocprofv3 stores them: a record with a duration is a region, one without
    // a sample; roctx records carry their message in the event's `extdata`.
    for c in &r.calls {
        let ev = w.event(&c.head, &json!({}));
        if c.head.start != c.head.end {
            w.region(&c.head, ev);
        } else {
            w.sample(&c.head, ev);
        }
        for (pos, (k, v)) in c.args.iter().flatten().enumerate() {
            let t = w.t("arg");
            conn.execute(
                &format!(
                    "INSERT INTO {t} (event_id, position, type, name, value) \
                     VALUES (?1, ?2, '', ?3, ?4)"
                ),
                params![ev, pos as i64, k, v],
            )
            .unwrap();
        }
    }
    for m in &r.markers {
        let extdata = m
            .message
            .as_ref()
            .map_or(json!({}), |text| json!({ "message": text }));
        let ev = w.event(&m.head, &extdata);
        if m.head.start != m.head.end {
            w.region(&m.head, ev);
        } else {
            w.sample(&m.head, ev);
        }
    }

    for k in &r.dispatches {
        let ev = w.event(&k.head, &json!({}));
        let tid = w.thread(k.head.tid);
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
                agent(k.agent),
                i(k.kernel_id),
                i(k.dispatch_id),
                i(k.queue),
                i(k.stream_id),
                i(k.head.start),
                i(k.head.end),
                i(k.private_segment_size),
                i(k.group_segment_size),
                i(k.workgroup[0]),
                i(k.workgroup[1]),
                i(k.workgroup[2]),
                i(k.grid[0]),
                i(k.grid[1]),
                i(k.grid[2]),
                ev,
            ],
        )
        .unwrap();
    }
    for m in &r.copies {
        let ev = w.event(&m.head, &json!({}));
        let tid = w.thread(m.head.tid);
        let name = w.string(&m.head.op_name);
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
                i(m.head.start),
                i(m.head.end),
                name,
                agent(m.dst_agent),
                agent(m.src_agent),
                i(m.bytes),
                i(m.stream_id),
                ev,
            ],
        )
        .unwrap();
    }
    conn.execute("COMMIT", []).unwrap();
}
