//! An [`Evaluator`] in another process: `contact-fmu fit --evaluator CMD` starts `CMD`
//! (through `sh -c`) and hands it the packaged FMU and, per evaluation, the cases to
//! run, as JSON lines on its standard input; it answers one JSON line per request on
//! its standard output. `examples/fit_dask.py` is such a process: it runs the cases on
//! a Dask cluster with fmpy (docs/calibration.md, "On a Dask cluster").
//!
//! Requests and answers:
//! - `{"fmu": PATH}` -> `{"ready": WORKERS}`
//! - `{"cases": [{"name", "set": {FMI name: value}, "output", "step", "steps", "first"}]}`
//!   -> `{"traces": [[value, ...], ...]}`: per case, fmi2DoStep `steps` times with the
//!   communication step `step` from the default experiment's start, `output` read after
//!   steps `first..=steps`; the case's `set` values are set before initialization.
//! - any request -> `{"error": MESSAGE}` when it fails.

use super::{Case, Evaluator, Model};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// A running evaluator process (killed when dropped).
pub struct External {
    command: String,
    io: Mutex<Option<(ChildStdin, BufReader<ChildStdout>)>>,
    child: Child,
    /// The scenario the FMU was packaged from: the cases' default communication step.
    model: Model,
    /// Workers the evaluator reported.
    pub workers: u64,
}

impl External {
    /// Starts `command` and hands it the FMU at `fmu` (packaged from `model`).
    pub fn start(command: &str, fmu: &Path, model: Model) -> Result<External, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("evaluator '{command}': cannot start: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(format!("evaluator '{command}': no pipes"));
        };
        let fmu = std::fs::canonicalize(fmu).map_err(|e| format!("{}: {e}", fmu.display()))?;
        let mut ext = External {
            command: command.to_string(),
            io: Mutex::new(Some((stdin, BufReader::new(stdout)))),
            child,
            model,
            workers: 0,
        };
        let answer = ext.ask(&serde_json::json!({ "fmu": fmu }))?;
        ext.workers = answer
            .get("ready")
            .and_then(|w| w.as_u64())
            .ok_or_else(|| {
                format!("evaluator '{command}': expected {{\"ready\": N}}, got {answer}")
            })?;
        Ok(ext)
    }

    /// One request, one answer line; `{"error": ...}` becomes an error.
    fn ask(&self, request: &serde_json::Value) -> Result<serde_json::Value, String> {
        let fail = |e: String| format!("evaluator '{}': {e}", self.command);
        let mut io = self
            .io
            .lock()
            .map_err(|_| fail("a request panicked".into()))?;
        let (stdin, stdout) = io.as_mut().ok_or_else(|| fail("closed".into()))?;
        writeln!(stdin, "{request}")
            .and_then(|_| stdin.flush())
            .map_err(|e| fail(format!("cannot send the request: {e}")))?;
        let mut line = String::new();
        let n = stdout
            .read_line(&mut line)
            .map_err(|e| fail(format!("cannot read the answer: {e}")))?;
        if n == 0 {
            return Err(fail(
                "it exited without answering (see its output above)".into(),
            ));
        }
        let answer: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| fail(format!("the answer is not JSON ({e}): {}", line.trim())))?;
        if let Some(e) = answer.get("error") {
            return Err(fail(e.as_str().map_or(e.to_string(), str::to_string)));
        }
        Ok(answer)
    }
}

impl Evaluator for External {
    fn traces(
        &self,
        cases: &[&Case],
        params: &BTreeMap<String, f64>,
    ) -> Result<Vec<Vec<f64>>, String> {
        let request: Vec<serde_json::Value> = cases
            .iter()
            .map(|c| {
                let h = self.step(c);
                let (steps, times) = c.measure.points(h);
                let mut set = c.set.clone();
                set.extend(params.iter().map(|(k, v)| (k.clone(), *v)));
                serde_json::json!({
                    "name": c.name, "set": set, "output": c.measure.output,
                    "step": h, "steps": steps, "first": steps + 1 - times.len(),
                })
            })
            .collect();
        let answer = self.ask(&serde_json::json!({ "cases": request }))?;
        let traces: Vec<Vec<f64>> = answer
            .get("traces")
            .cloned()
            .and_then(|t| serde_json::from_value(t).ok())
            .ok_or_else(|| format!("evaluator '{}': the answer has no traces", self.command))?;
        if traces.len() != cases.len() {
            return Err(format!(
                "evaluator '{}': {} traces for {} cases",
                self.command,
                traces.len(),
                cases.len()
            ));
        }
        for (t, c) in traces.iter().zip(cases) {
            let want = c.measure.points(self.step(c)).1.len();
            if t.len() != want {
                return Err(format!(
                    "evaluator '{}': case '{}': {} values for {want} communication points",
                    self.command,
                    c.name,
                    t.len()
                ));
            }
        }
        Ok(traces)
    }

    fn step(&self, case: &Case) -> f64 {
        self.model.step(case)
    }
}

impl Drop for External {
    fn drop(&mut self) {
        // closing its stdin ends a well-behaved evaluator; give it a moment, then kill it
        if let Ok(mut io) = self.io.lock() {
            io.take();
        }
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
