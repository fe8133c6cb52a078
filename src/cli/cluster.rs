//! `blox slurm` and `blox k8s`: the files that run a spec's grid as the tasks of a Slurm job
//! array or a Kubernetes Indexed Job, each task one `blox run --shard auto`. blox does not manage
//! a cluster; it writes what the cluster's own scheduler runs.

use super::read_spec;
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Args)]
pub(super) struct SlurmArgs {
    /// Experiment spec (YAML), read by every task from a file system they all see.
    spec: PathBuf,
    /// Array tasks (shards); each runs `blox run --shard auto`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tasks: u32,
    /// Results root shared by the tasks.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Worker threads per task (`-j`, and `--cpus-per-task` in the script).
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Where to write the script (default: <out>/<name>/slurm/array.sbatch).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Submit the script with `sbatch` after writing it.
    #[arg(long)]
    submit: bool,
    /// With --submit: wait until every task has ended (`sbatch --wait`).
    #[arg(long, requires = "submit")]
    wait: bool,
    /// More `#SBATCH` options, e.g. --sbatch=--partition=cpu --sbatch=--time=02:00:00.
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    sbatch: Vec<String>,
}

#[derive(Args)]
pub(super) struct K8sArgs {
    /// Experiment spec (YAML), as the pods see it (mounted from the results volume or baked in).
    spec: PathBuf,
    /// Completions (shards) of the Indexed Job; each pod runs `blox run --shard auto`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    tasks: u32,
    /// Container image with the `blox` binary (see `Containerfile`).
    #[arg(long)]
    image: String,
    /// Pods running at once (default: all).
    #[arg(long)]
    parallelism: Option<u32>,
    /// PersistentVolumeClaim (ReadWriteMany) holding the spec and the results.
    #[arg(long, default_value = "blox-results")]
    claim: String,
    /// Where the claim is mounted in the pods.
    #[arg(long, default_value = "/work")]
    mount: String,
    /// Worker threads per pod (`-j`, and the CPU request).
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Where to write the manifest (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub(super) fn slurm(args: SlurmArgs) -> Result<ExitCode, String> {
    let (_, spec) = read_spec(Some(&args.spec)).map_err(|e| e.to_string())?;
    let name = &spec.name.value.0;
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let (spec_path, out) = (absolute(&args.spec)?, absolute(&args.out)?);
    let logs = out.join(name).join("slurm");
    let script_path = args.output.clone().unwrap_or_else(|| logs.join("array.sbatch"));
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let blox = std::env::current_exe().map_err(|e| format!("cannot find the blox binary: {e}"))?;
    let script = slurm_script(&SlurmScript {
        name,
        tasks: args.tasks,
        jobs: args.jobs,
        blox: &blox,
        spec: &spec_path,
        out: &out,
        logs: &logs,
        extra: &args.sbatch,
    });
    if let Some(parent) = script_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    crate::results::store::write_file_atomically(&script_path, script.as_bytes())
        .map_err(|e| format!("{}: {e}", script_path.display()))?;
    eprintln!("wrote {} ({} array tasks)", script_path.display(), args.tasks);
    if !args.submit {
        return Ok(ExitCode::SUCCESS);
    }
    let mut sbatch = Command::new("sbatch");
    sbatch.arg("--parsable");
    if args.wait {
        sbatch.arg("--wait");
    }
    let status = sbatch.arg(&script_path).status().map_err(|e| format!("cannot run sbatch: {e}"))?;
    if !status.success() {
        return Err(format!("sbatch failed ({status}); task logs go to {}", logs.display()));
    }
    Ok(ExitCode::SUCCESS)
}

struct SlurmScript<'a> {
    name: &'a str,
    tasks: u32,
    jobs: u16,
    blox: &'a Path,
    spec: &'a Path,
    out: &'a Path,
    logs: &'a Path,
    extra: &'a [String],
}

/// The sbatch array script: one task per shard, each `blox run --shard auto`.
fn slurm_script(s: &SlurmScript<'_>) -> String {
    let mut text = String::from("#!/bin/bash\n");
    let _ = writeln!(text, "# Written by `blox slurm`: task i of the array runs shard i+1 of {} of the grid.", s.tasks);
    let _ = writeln!(text, "#SBATCH --job-name=blox-{}", s.name);
    let _ = writeln!(text, "#SBATCH --array=0-{}", s.tasks - 1);
    let _ = writeln!(text, "#SBATCH --cpus-per-task={}", s.jobs);
    let _ = writeln!(text, "#SBATCH --output={}/%A_%a.out", s.logs.display());
    for option in s.extra {
        let _ = writeln!(text, "#SBATCH {option}");
    }
    let _ = writeln!(
        text,
        "exec {} run {} --out {} --shard auto -j {}",
        shell_quote(&s.blox.display().to_string()),
        shell_quote(&s.spec.display().to_string()),
        shell_quote(&s.out.display().to_string()),
        s.jobs
    );
    text
}

pub(super) fn k8s(args: K8sArgs) -> Result<ExitCode, String> {
    let (_, spec) = read_spec(Some(&args.spec)).map_err(|e| e.to_string())?;
    let manifest = k8s_manifest(&K8sJob {
        name: &spec.name.value.0,
        tasks: args.tasks,
        parallelism: args.parallelism.unwrap_or(args.tasks).min(args.tasks),
        image: &args.image,
        claim: &args.claim,
        mount: &args.mount,
        spec: &args.spec,
        jobs: args.jobs,
    });
    match &args.output {
        Some(path) => {
            crate::results::store::write_file_atomically(path, manifest.as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("wrote {} (an Indexed Job of {} completions)", path.display(), args.tasks);
        }
        None => super::emit(&manifest),
    }
    Ok(ExitCode::SUCCESS)
}

struct K8sJob<'a> {
    name: &'a str,
    tasks: u32,
    parallelism: u32,
    image: &'a str,
    claim: &'a str,
    mount: &'a str,
    spec: &'a Path,
    jobs: u16,
}

/// An Indexed Job: pod i runs shard i+1 of `tasks` (`JOB_COMPLETION_INDEX`, and `BLOX_SHARDS`
/// since Kubernetes does not pass the completion count), all writing into one volume.
fn k8s_manifest(j: &K8sJob<'_>) -> String {
    // Kubernetes names: lowercase alphanumerics and '-', at most 63 characters.
    let name: String = format!("blox-{}", j.name)
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(63)
        .collect::<String>()
        .trim_end_matches('-')
        .to_string();
    let spec = if j.spec.is_absolute() {
        j.spec.display().to_string()
    } else {
        format!("{}/{}", j.mount.trim_end_matches('/'), j.spec.display())
    };
    let results = format!("{}/results", j.mount.trim_end_matches('/'));
    let quoted = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    format!(
        "# Written by `blox k8s`: pod i of the Indexed Job runs shard i+1 of {tasks} of the grid.
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  completionMode: Indexed
  completions: {tasks}
  parallelism: {parallelism}
  backoffLimitPerIndex: 2
  maxFailedIndexes: {tasks}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: blox
          image: {image}
          args: [\"run\", {spec}, \"--out\", {results}, \"--shard\", \"auto\", \"-j\", \"{jobs}\"]
          env:
            - name: BLOX_SHARDS
              value: \"{tasks}\"
          resources:
            requests:
              cpu: \"{jobs}\"
          volumeMounts:
            - name: work
              mountPath: {mount}
      volumes:
        - name: work
          persistentVolumeClaim:
            claimName: {claim}
",
        tasks = j.tasks,
        parallelism = j.parallelism,
        image = quoted(j.image),
        spec = quoted(&spec),
        results = quoted(&results),
        jobs = j.jobs,
        mount = quoted(j.mount),
        claim = quoted(j.claim),
    )
}

/// `s` as one shell word.
fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_array_script_runs_one_shard_per_task() {
        let script = slurm_script(&SlurmScript {
            name: "blox-fig6",
            tasks: 4,
            jobs: 2,
            blox: Path::new("/opt/blox/bin/blox"),
            spec: Path::new("/home/me/my study.yaml"),
            out: Path::new("/scratch/results"),
            logs: Path::new("/scratch/results/blox-fig6/slurm"),
            extra: &["--partition=cpu".into()],
        });
        let lines: Vec<&str> = script.lines().collect();
        assert_eq!(lines[0], "#!/bin/bash");
        for expected in [
            "#SBATCH --array=0-3",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --output=/scratch/results/blox-fig6/slurm/%A_%a.out",
            "#SBATCH --partition=cpu",
            "exec /opt/blox/bin/blox run '/home/me/my study.yaml' --out /scratch/results --shard auto -j 2",
        ] {
            assert!(lines.contains(&expected), "{expected} missing from:\n{script}");
        }
    }

    #[test]
    fn shell_words_survive_quotes() {
        assert_eq!(shell_quote("/a/b.yaml"), "/a/b.yaml");
        assert_eq!(shell_quote("it's here"), r"'it'\''s here'");
    }

    #[test]
    fn the_manifest_is_an_indexed_job_with_the_shard_count() {
        let manifest = k8s_manifest(&K8sJob {
            name: "Blox_Fig6",
            tasks: 8,
            parallelism: 4,
            image: "ghcr.io/me/blox:1",
            claim: "results",
            mount: "/work",
            spec: Path::new("specs/blox-fig6.yaml"),
            jobs: 1,
        });
        // Well-formed YAML with the structure Kubernetes reads.
        let job: serde_json::Value = serde_saphyr::from_str(&manifest).unwrap();
        assert_eq!(job["kind"], "Job");
        assert_eq!(job["spec"]["completionMode"], "Indexed");
        assert_eq!(job["spec"]["completions"], 8);
        let container = &job["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["args"][5], "auto");
        assert_eq!(container["env"][0]["value"], "8");
        assert_eq!(container["volumeMounts"][0]["mountPath"], "/work");
        for expected in [
            "  name: blox-blox-fig6",
            "  completionMode: Indexed",
            "  completions: 8",
            "  parallelism: 4",
            "          image: \"ghcr.io/me/blox:1\"",
            "          args: [\"run\", \"/work/specs/blox-fig6.yaml\", \"--out\", \"/work/results\", \"--shard\", \"auto\", \"-j\", \"1\"]",
            "            - name: BLOX_SHARDS",
            "              value: \"8\"",
            "            claimName: \"results\"",
        ] {
            assert!(manifest.lines().any(|l| l == expected), "{expected} missing from:\n{manifest}");
        }
    }
}
