"""batchdoku on a real standalone Spark cluster, set up as docs/spark.md
("Running on a cluster") tells a cluster user to: a wheel built with
maturin, a fresh virtual environment with it packed by venv-pack, shipped
with ``--archives env.tar.gz#environment`` and run by the executors as
``./environment/bin/python``. A master and two one-core workers (pyspark's
own ``spark-class``, on 127.0.0.1 only) run a spark-submit application
whose jobs each lose one executor JVM to SIGKILL while they run: the
output must still be exactly the command line's, each row once.

Everything started here runs in sessions of its own and is killed at the
end, however the test ends. Skipped, saying why, without pyspark or Java.
$BATCHDOKU_WHEEL names a wheel to ship instead of building one.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ROOT, SAMPLE, run_cli

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java: Spark needs a JRE (apt-get install -y openjdk-17-jre-headless)", allow_module_level=True)

pytestmark = pytest.mark.spark

SPARK_HOME = os.path.dirname(os.path.abspath(pyspark.__file__))
COPIES = 334  # of the 3,000 sample puzzles: 1,002,000 rows
FILES = 16  # input Parquet files, one partition (task) each
GENERATED = 120_000  # minimal puzzles for generate_df
GENERATE_PARTITIONS = 16
SEED = 20261126
WAIT = 180  # seconds any one step may take before the test gives up

# The application, run by spark-submit on the cluster. It writes what it
# sees as JSON lines to an events file; the test, which owns the
# processes, kills an executor when the application says a job is
# running on both, and tells it so through a file.
DRIVER = r'''
import json, os, sys, threading, time
from pyspark.sql import SparkSession
from batchdoku.spark import generate_df, solve_df

events, control = sys.argv[1], sys.argv[2]
jobs = json.loads(sys.argv[3])


def emit(event, **fields):
    with open(events, "a") as f:
        f.write(json.dumps(dict(fields, event=event, time=time.time())) + "\n")


def where(_):
    """Where an executor's Python finds the package and its libraries."""
    import os, sys, time
    import batchdoku, batchdoku.spark, numpy, pandas, pyarrow

    time.sleep(0.3)  # both executors get tasks
    names = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    return {
        "cwd": os.getcwd(), "prefix": sys.prefix, "executable": sys.executable, "path": sys.path,
        "batchdoku": batchdoku.__file__, "extension": batchdoku._batchdoku.__file__,
        "numpy": numpy.__file__, "pandas": pandas.__file__, "pyarrow": pyarrow.__file__,
        "env": {k: os.environ.get(k) for k in names},
    }


def stage_infos(tracker, group):
    out = []
    for job in sorted(tracker.getJobIdsForGroup(group)):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            s = tracker.getStageInfo(stage)
            if s is not None:
                out.append({"job_id": job, "job_status": info.status, "stage": stage, "tasks": s.numTasks,
                            "active": s.numActiveTasks, "completed": s.numCompletedTasks, "failed": s.numFailedTasks})
    return out


def executors(sc):
    return sc._jsc.sc().getExecutorMemoryStatus().size() - 1  # less the driver


def gated(df, name):
    """`df`'s rows unchanged, but the tasks after the first two wait until
    the test says it killed an executor: so the kill lands mid-job (two
    tasks done, two running, the rest to go) however fast the tasks are.
    Without it a fast machine finished the solve job's 16 tasks between
    two looks at the stage."""
    answer = os.path.join(control, name + ".killed")

    def gate(batches):
        from pyspark import TaskContext

        if TaskContext.get().partitionId() >= 2:
            deadline = time.time() + 300
            while not os.path.exists(answer) and time.time() < deadline:
                time.sleep(0.05)
        yield from batches

    return df.mapInArrow(gate, df.schema)


def run_losing_an_executor(sc, name, action):
    """Runs `action` (one Spark job) in a thread of its own; once its stage
    has completed some tasks, runs one on each executor and has several
    more to go, asks the test to kill an executor and waits until it
    says it did; reports what the job was doing then, and how it ended."""
    outcome = {}

    def body():
        sc.setJobGroup(name, name)
        try:
            action()
            outcome["ok"] = True
        except BaseException as e:  # reported, and the test fails on it
            outcome["error"] = repr(e)[-3000:]

    tracker = sc.statusTracker()
    thread = threading.Thread(target=body, daemon=True)
    started = time.time()
    thread.start()
    asked = None
    while thread.is_alive() and asked is None and time.time() - started < 300:
        for s in stage_infos(tracker, name):
            to_go = s["tasks"] - s["completed"] - s["active"]
            if s["completed"] >= 2 and s["active"] == 2 and to_go >= 4:
                asked = s
        if asked is None:
            time.sleep(0.02)
    if asked is None:
        thread.join()
        emit("missed", job=name, stages=stage_infos(tracker, name), outcome=outcome)
        return
    emit("ready", job=name, **asked)
    answer = os.path.join(control, name + ".killed")
    deadline = time.time() + 120
    while not os.path.exists(answer) and time.time() < deadline:
        time.sleep(0.01)
    # What the job was doing once the executor was gone.
    emit("killed", job=name, answered=os.path.exists(answer), running=thread.is_alive(),
         stages=stage_infos(tracker, name), executors=executors(sc))
    thread.join()
    emit("done", job=name, seconds=time.time() - started, stages=stage_infos(tracker, name),
         executors=executors(sc), **outcome)


spark = SparkSession.builder.appName("batchdoku-cluster-test").getOrCreate()
sc = spark.sparkContext
deadline = time.time() + 120
while executors(sc) < 2 and time.time() < deadline:
    time.sleep(0.1)
emit("executors", count=executors(sc), master=sc.master, python=sc.pythonExec)
emit("probe", rows=sc.parallelize(range(4), 4).map(where).collect())
for job in jobs:
    deadline = time.time() + 120
    while executors(sc) < 2 and time.time() < deadline:  # a lost one's replacement too
        time.sleep(0.1)
    if job["kind"] == "solve":
        df = spark.read.parquet(job["input"])
        emit("input", job=job["name"], partitions=df.rdd.getNumPartitions())
        solved = solve_df(gated(df, job["name"]), "puzzle")
        run_losing_an_executor(sc, job["name"], lambda: solved.write.parquet(job["output"]))
    else:
        made = gated(generate_df(spark, job["n"], seed=job["seed"], partitions=job["partitions"], minimal=True, with_solution=True), job["name"])
        run_losing_an_executor(sc, job["name"], lambda: made.write.parquet(job["output"]))
spark.stop()
emit("stopped")
'''


# -- processes ---------------------------------------------------------------


def _proc_stat(pid):
    """(state, session id) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[3])


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def _pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _cwd(pid):
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def _die_with_parent():
    """In the child, before exec: SIGKILL when the test's process dies
    without its teardown (killed itself); the executors and Python workers
    of a killed worker or driver then exit on their own, their
    connections gone."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Processes:
    """What the test starts, each in a session of its own. The executors a
    worker starts stay in its session, and so do the Python daemons an
    executor starts (though they make process groups of their own); all
    of them work in, or name in their command lines, folders under `root`.
    stop() kills every one of them."""

    def __init__(self, root):
        self.root = str(root)
        self.started = []

    def start(self, args, log, env):
        with open(log, "ab") as out:
            p = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True, preexec_fn=_die_with_parent
            )
        self.started.append(p)
        return p

    def leftovers(self):
        """Live processes in the session of a process started here that has
        not been reaped (its id is not anyone else's yet), or working in a
        folder under root, or naming one."""
        sessions = {p.pid for p in self.started if p.returncode is None}
        under = self.root + os.sep
        found = []
        for pid in _pids():
            stat = _proc_stat(pid)
            if stat is None or stat[0] == "Z" or pid == os.getpid():
                continue
            if stat[1] in sessions or (_cwd(pid) + os.sep).startswith(under) or any(under in a for a in _cmdline(pid)):
                found.append(pid)
        return found

    def stop(self):
        """Kills them all; returns those still alive after 30 s (pid, command)."""
        for p in reversed(self.started):  # the driver first, the master last
            if p.poll() is None:  # (an exited leader's group id may be another's by now)
                os.killpg(p.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while True:
            for p in self.started:
                try:
                    p.wait(timeout=0.1)
                except subprocess.TimeoutExpired:
                    pass
            rest = self.leftovers()
            if not rest or time.monotonic() > deadline:
                return [(pid, " ".join(_cmdline(pid))[:300]) for pid in rest]
            for pid in rest:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)


def _wait_for(what, check, proc=None, log=None, timeout=WAIT):
    """check()'s first true value, polled; fails naming `what` (and the
    log's end) on timeout or when `proc` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what}: the process exited ({proc.returncode}) first\n{_tail(log)}")
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {timeout} s\n{_tail(log)}")


def _tail(path, n=6000):
    try:
        return path.read_text(errors="replace")[-n:] if path else ""
    except OSError:
        return ""


def _clean_env():
    """This environment without what would point Spark or Python at the
    test's own virtual environment (or at another Spark): the cluster's
    processes must get their Python from the shipped archive only."""
    venv_bin = os.path.dirname(os.path.abspath(sys.executable))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYSPARK_", "SPARK_")) and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and os.path.abspath(p) != venv_bin)
    return env


# -- the package, shipped as the docs say --------------------------------------


def _build_wheel(dist):
    """`maturin build` of python/Cargo.toml (the release-py profile that
    python/pyproject.toml names; the build `maturin develop` made for this
    test run is reused), or the wheel $BATCHDOKU_WHEEL names."""
    given = os.environ.get("BATCHDOKU_WHEEL")
    if given:
        return pathlib.Path(given)
    maturin = shutil.which("maturin", path=os.path.dirname(sys.executable)) or shutil.which("maturin")
    if maturin is None:
        pytest.fail("maturin is needed to build the wheel shipped to the cluster (pip install 'maturin>=1.9.4,<2')")
    out = subprocess.run(
        [maturin, "build", "--manifest-path", str(ROOT / "python" / "Cargo.toml"), "-o", str(dist)],
        capture_output=True, text=True, timeout=1800,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    wheels = list(dist.glob("batchdoku-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _pack_environment(wheel, env_dir, archive):
    """A fresh virtual environment (not this one) with the wheel, pyarrow,
    pandas<3, numpy and venv-pack, packed by its own venv-pack. pyarrow,
    pandas and numpy are pinned to this interpreter's versions: the
    driver's, and already in pip's cache. pip installs into it from here
    (`pip --python`), which spares the new environment a pip of its own."""
    import importlib.metadata as md

    pins = []
    for name in ("pyarrow", "pandas", "numpy"):
        try:
            version = md.version(name)
        except md.PackageNotFoundError:
            version = None
        if name == "pandas" and (version is None or int(version.split(".")[0]) >= 3):
            pins.append("pandas>=2.2,<3")
        else:
            pins.append(f"{name}=={version}" if version else name)
    try:
        pip_version = tuple(int(x) for x in re.findall(r"\d+", md.version("pip"))[:2])
    except md.PackageNotFoundError:
        pip_version = (0,)
    python = env_dir / "bin" / "python"
    if pip_version >= (22, 3):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
        pip = [sys.executable, "-m", "pip", "--python", str(python)]
    else:
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        pip = [str(python), "-m", "pip"]
    out = subprocess.run(
        pip + ["install", "--quiet", "--disable-pip-version-check", "--no-compile", str(wheel), *pins, "venv-pack"],
        capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    # Without the libraries' test suites, C headers and Cython sources,
    # which executors never load: half the files, each of which every
    # executor unpacks, and the test deletes, at some cost (tens of
    # seconds on this machine's disk for the five copies).
    unused = ["*/tests/*", "*/include/*", "*.pyx", "*.pxd"]
    out = subprocess.run(
        [str(env_dir / "bin" / "venv-pack"), "-p", str(env_dir), "-o", str(archive), "--compress-level", "1", "--quiet"]
        + [arg for pattern in unused for arg in ("--exclude", pattern)],
        capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return pins


# -- the cluster ----------------------------------------------------------------


class Cluster:
    def __init__(self, root):
        self.root = root
        self.procs = Processes(root)
        self.timings = {}
        self.master_url = None
        self.workers = []  # (process, work dir, log)

    def start(self):
        env = _clean_env()
        conf = self.root / "conf"  # no spark-defaults.conf or spark-env.sh from elsewhere
        conf.mkdir()
        jtmp = self.root / "java-tmp"
        jtmp.mkdir()
        env.update(
            SPARK_HOME=SPARK_HOME,
            SPARK_CONF_DIR=str(conf),
            SPARK_LOCAL_IP="127.0.0.1",  # RPC and the web UIs bind to loopback only
            SPARK_LOCAL_DIRS=str(self.root / "local"),
            SPARK_DAEMON_MEMORY="256m",
            PYTHONDONTWRITEBYTECODE="1",  # no __pycache__ in the unpacked environments
            # Every JVM (the launcher's, master, workers, executors, driver)
            # keeps its temporary files (the archive's copies among them)
            # under root, not in /tmp, where a killed one would leave them.
            JAVA_TOOL_OPTIONS=f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -Djava.io.tmpdir={jtmp} -XX:-UsePerfData".strip(),
            # No REST submission server: it takes a fixed port (6066), which
            # two runs at once, or anything else there, would fight over.
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
        )
        self.env = env
        spark_class = os.path.join(SPARK_HOME, "bin", "spark-class")
        log = self.root / "master.log"
        master = self.procs.start(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", "0", "--webui-port", "0"], log, env
        )
        url = _wait_for("the master's URL", lambda: re.search(r"Starting Spark master at (spark://127\.0\.0\.1:\d+)", _tail(log, 10**6)), master, log)
        self.master_url = url.group(1)
        _wait_for("the master elected", lambda: "New state: ALIVE" in _tail(log, 10**6), master, log)
        for i in range(2):
            work = self.root / f"worker{i}"
            work.mkdir()
            wlog = self.root / f"worker{i}.log"
            p = self.procs.start(
                [
                    spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", "0",
                    "--webui-port", "0", "--cores", "1", "--memory", "1536m", "--work-dir", str(work), self.master_url,
                ],
                wlog, env,
            )
            self.workers.append((p, work, wlog))
        for p, work, wlog in self.workers:
            _wait_for("a worker registered", lambda: "Successfully registered with master" in _tail(wlog, 10**6), p, wlog)
        registered = re.findall(r"Registering worker 127\.0\.0\.1:\d+ with (\d+) cores", _tail(log, 10**6))
        assert registered == ["1", "1"], registered

    def executors(self):
        """The live executor JVMs the workers started: (pid, executor id,
        app id, its work folder)."""
        found = []
        sessions = {p.pid: work for p, work, _ in self.workers}
        for pid in _pids():
            stat = _proc_stat(pid)
            if stat is None or stat[0] == "Z" or stat[1] not in sessions:
                continue
            args = _cmdline(pid)
            if "org.apache.spark.executor.CoarseGrainedExecutorBackend" in args:
                eid, app = args[args.index("--executor-id") + 1], args[args.index("--app-id") + 1]
                found.append((pid, eid, app, sessions[stat[1]] / app / eid))
        return found


def _tasks_in_flight(log):
    """TIDs an executor's log says it started and did not finish."""
    text = _tail(log, 10**8)
    started = set(re.findall(r"Running task \S+ in stage \S+ \(TID (\d+)\)", text))
    finished = set(re.findall(r"Finished task \S+ in stage \S+ \(TID (\d+)\)", text))
    return sorted(started - finished, key=int)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster")
    c = Cluster(root)
    began = time.monotonic()
    try:
        t = time.monotonic()
        c.wheel = _build_wheel(root / "dist")
        c.timings["wheel build"] = time.monotonic() - t
        t = time.monotonic()
        c.pins = _pack_environment(c.wheel, root / "env", root / "env.tar.gz")
        c.archive = root / "env.tar.gz"
        c.timings["venv + pip + venv-pack"] = time.monotonic() - t
        print(f"\nshipping {c.wheel.name} with {' '.join(c.pins)}: {c.archive.stat().st_size / 2**20:.0f} MiB packed")
        shutil.rmtree(root / "env")  # the archive is what the cluster gets
        t = time.monotonic()
        c.start()
        c.timings["cluster start"] = time.monotonic() - t
        yield c
    finally:
        t = time.monotonic()
        left = c.procs.stop()
        c.timings["teardown"] = time.monotonic() - t
        t = time.monotonic()
        # The archive, its copies and unpacked environments, and the data
        # are big (2 GB); the logs stay.
        for path in list(root.glob("worker*/app-*/*/environment")) + [root / n for n in ("data", "env", "java-tmp", "local", "dist")]:
            shutil.rmtree(path, ignore_errors=True)
        (root / "env.tar.gz").unlink(missing_ok=True)
        c.timings["clean-up"] = time.monotonic() - t
        c.timings["total"] = time.monotonic() - began
        print("\ncluster test timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in c.timings.items()))
        assert not left, f"processes left running: {left}"


# -- the application --------------------------------------------------------------


def _submit(cluster, tmp, jobs):
    """Starts the application (spark-submit, client mode: the driver is
    this test's Python, the executors the archive's); returns the process,
    its events file and its control folder."""
    events, control, log = tmp / "events.jsonl", tmp / "control", tmp / "driver.log"
    control.mkdir()
    events.touch()
    # (Its local folder, like the executors', is $SPARK_LOCAL_DIRS.)
    conf = {
        "spark.pyspark.python": "./environment/bin/python",
        # Client mode: the driver runs here, not in a container that has
        # ./environment; it is this test's interpreter.
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.maxRecordsPerBatch": "50000",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.executor.memory": "1g",
        "spark.cores.max": "2",
        # Each executor fetches the archive once, to its own temporary
        # folder, instead of through a shared cache as well (a copy less
        # of 100 MB to write, and to delete, per executor).
        "spark.files.useFetchCache": "false",
        # One partition per input file (each far below 128 MiB).
        "spark.sql.files.maxPartitionBytes": "128m",
        "spark.sql.files.openCostInBytes": "128m",
    }
    args = [os.path.join(SPARK_HOME, "bin", "spark-submit"), "--master", cluster.master_url, "--deploy-mode", "client",
            "--archives", f"{cluster.archive}#environment"]
    for k, v in conf.items():
        args += ["--conf", f"{k}={v}"]
    script = tmp / "driver.py"
    script.write_text(DRIVER)
    args += [str(script), str(events), str(control), json.dumps(jobs)]
    proc = cluster.procs.start(args, log, dict(cluster.env))
    return proc, events, control, log


class Events:
    def __init__(self, path, proc, log):
        self.path, self.proc, self.log = path, proc, log

    def all(self):
        return [json.loads(l) for l in self.path.read_text().splitlines() if l.strip()]

    def wait(self, event, job=None, timeout=WAIT):
        def find():
            for e in self.all():
                if e["event"] == event and (job is None or e.get("job") == job):
                    return e
                if e["event"] == "missed" and e.get("job") == job:
                    pytest.fail(f"{job}: the job ended before it ran on both executors with tasks to go: {e}")

        return _wait_for(f"the application's {event!r} event" + (f" for {job}" if job else ""), find, self.proc, self.log, timeout)


def _check_executors_use_the_archive(probe, cluster):
    import site

    rows = probe["rows"]
    assert len(rows) == 4
    ours = [os.path.realpath(p) + os.sep for p in site.getsitepackages() + [str(ROOT / "python")]]
    spark_home = os.path.realpath(SPARK_HOME) + os.sep
    for r in rows:
        cwd = r["cwd"]
        # The executor's own folder under a worker: .../workerN/app-.../ID
        assert any(os.path.realpath(cwd).startswith(os.path.realpath(w) + os.sep) for _, w, _ in cluster.workers), r
        env = os.path.normpath(os.path.join(cwd, "environment"))

        def unpacked(path):  # (bin/python is a link to the system's interpreter: not resolved)
            return os.path.normpath(os.path.join(cwd, path)).startswith(env + os.sep)

        assert os.path.normpath(r["prefix"]) == env, r
        assert unpacked(r["executable"]), r
        for module in ("batchdoku", "extension", "numpy", "pandas", "pyarrow"):
            assert unpacked(r[module]), (module, r)
        # Nothing of the test's environment or checkout reached them; the
        # cluster's Spark (pyspark.zip, py4j) aside: pip's pyspark, here in
        # the test's environment, is the cluster's installation.
        leaked = [p for p in r["path"] if p and (os.path.realpath(p) + os.sep).startswith(tuple(ours))]
        assert all(os.path.realpath(p).startswith(spark_home) for p in leaked), (leaked, r)
        assert r["env"]["VIRTUAL_ENV"] is None and r["env"]["PYSPARK_DRIVER_PYTHON"] is None, r
        assert r["env"]["PYSPARK_PYTHON"] is None or unpacked(r["env"]["PYSPARK_PYTHON"]), r
    # Both executors answered.
    assert len({r["cwd"] for r in rows}) == 2, rows


def _kill_an_executor(cluster, events, control, job):
    """When the application says `job` is running on both executors with
    tasks to go, SIGKILLs the JVM of an executor that runs a task now (its
    log says so: between two tasks an executor runs none for a moment) and
    tells the application. Returns what was killed."""
    ready = events.wait("ready", job)
    app_executors = cluster.executors()
    assert len(app_executors) == 2, app_executors
    busy = _wait_for("an executor running a task", lambda: [e for e in app_executors if _tasks_in_flight(e[3] / "stderr")], timeout=10)
    pid, eid, app, work = busy[0]
    os.kill(pid, signal.SIGKILL)
    _wait_for("the killed executor gone", lambda: _proc_stat(pid) is None or _proc_stat(pid)[0] == "Z", timeout=30)
    (control / (job + ".killed")).write_text(json.dumps({"pid": pid, "executor": eid}))
    # Its log no longer moves: the tasks it had not finished, and those it
    # had committed output for (the driver may not have heard of it yet).
    text = _tail(work / "stderr", 10**8)
    unfinished = _tasks_in_flight(work / "stderr")
    committed = re.findall(r"attempt_\w+_m_(\d+)_(\d+): Committed", text)
    return {"ready": ready, "pid": pid, "executor": eid, "app": app, "work": work, "unfinished": unfinished, "committed": committed}


def _check_the_job_survived(events, job, kill, driver_log):
    after = events.wait("killed", job)
    done = events.wait("done", job)
    assert after["answered"], after
    # The executor was killed while the job ran, with tasks still to go.
    assert after["running"], after
    assert any(s["job_status"] == "RUNNING" and s["completed"] < s["tasks"] for s in after["stages"]), after
    assert kill["ready"]["completed"] >= 2 and kill["ready"]["tasks"] - kill["ready"]["completed"] >= 4, kill
    # The job lost a task with the executor (the driver counts it failed),
    # ran it again elsewhere and succeeded.
    assert done.get("ok") is True, done
    assert sum(s["failed"] for s in done["stages"]) >= 1, (done, kill)
    assert all(s["job_status"] == "SUCCEEDED" for s in done["stages"]), done
    # Which, as the driver's log tells it (reported, not relied on).
    kill["lost"] = re.findall(rf"Lost task (\S+) in stage \S+ \(TID (\d+)\) \(\S+ executor {kill['executor']}\): ExecutorLostFailure", _tail(driver_log, 10**8))
    return done


def _read_spark_output(path):
    import pyarrow.parquet as pq

    parts = sorted(p.name for p in path.glob("part-*"))
    assert (path / "_SUCCESS").exists() and parts, sorted(p.name for p in path.iterdir())
    # No attempt's files left behind (a lost task's are in _temporary).
    assert not (path / "_temporary").exists()
    return pq.read_table(path)


def _mismatches(got, want, name, key):
    """Positions (as `key` values) where a column differs, first few."""
    import pyarrow.compute as pc

    a, b = got.column(name), want.column(name)
    if a.equals(b):
        return []
    same = pc.fill_null(pc.equal(a, b), False)
    both_null = pc.and_(pc.is_null(a), pc.is_null(b))
    bad = pc.invert(pc.or_(same, both_null))
    return pc.filter(got.column(key), bad).to_pylist()[:10]


def _puzzles_table():
    """1,002,000 rows with an id: the 3,000 sample puzzles, each copy with
    its digits relabelled (a puzzle in disguise: as hard, another
    solution), and a few bad rows (null, malformed, invalid)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lines = [l[:81] for l in SAMPLE.read_text().splitlines() if l.strip() and not l.startswith("#")]
    base = np.frombuffer("".join(lines).encode(), dtype=np.uint8).reshape(len(lines), 81)
    rng = np.random.default_rng(SEED)
    copies = []
    for k in range(COPIES):
        lut = np.arange(256, dtype=np.uint8)
        if k:
            lut[ord("1") : ord("9") + 1] = rng.permutation(np.arange(ord("1"), ord("9") + 1, dtype=np.uint8))
        copies.append(lut[base])
    cells = np.concatenate(copies)
    n = len(cells)
    offsets = np.arange(0, (n + 1) * 81, 81, dtype=np.int32)
    puzzles = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(cells.tobytes()))
    bad = np.zeros(n, dtype=bool)
    bad[[123_456, 500_000, 777_777]] = True
    puzzles = pc.replace_with_mask(puzzles, pa.array(bad), pa.array([None, "not a puzzle", "11" + "." * 79], pa.string()))
    return pa.table({"id": pa.array(np.arange(n, dtype=np.int64)), "puzzle": puzzles})


# -- the tests ----------------------------------------------------------------------


def test_solve_and_generate_on_a_cluster_that_loses_an_executor_in_each_job(cluster, cli):
    import pyarrow as pa
    import pyarrow.parquet as pq

    timings = cluster.timings
    # The input: Parquet files the application reads, one task each.
    t = time.monotonic()
    data = cluster.root / "data"
    (data / "in").mkdir(parents=True)
    table = _puzzles_table()
    n = table.num_rows
    for i in range(FILES):
        pq.write_table(table.slice(i * n // FILES, (i + 1) * n // FILES - i * n // FILES), data / "in" / f"part-{i:05d}.parquet")
    del table
    timings["input"] = time.monotonic() - t

    jobs = [
        {"name": "solve", "kind": "solve", "input": str(data / "in"), "output": str(data / "solved")},
        {"name": "generate", "kind": "generate", "n": GENERATED, "seed": SEED, "partitions": GENERATE_PARTITIONS, "output": str(data / "generated")},
    ]
    t = time.monotonic()
    app = cluster.root / "app"
    app.mkdir()
    proc, path, control, log = _submit(cluster, app, jobs)
    events = Events(path, proc, log)
    started = events.wait("executors")
    assert started["count"] == 2 and started["master"] == cluster.master_url, started
    assert started["python"] == "./environment/bin/python", started
    probe = events.wait("probe")
    timings["application start"] = time.monotonic() - t
    _check_executors_use_the_archive(probe, cluster)
    assert events.wait("input", "solve")["partitions"] == FILES

    kills = {}
    for job in ("solve", "generate"):
        kills[job] = _kill_an_executor(cluster, events, control, job)
        timings[f"{job} job"] = _check_the_job_survived(events, job, kills[job], log)["seconds"]
    events.wait("stopped")
    assert proc.wait(timeout=WAIT) == 0, _tail(log)
    # A killed executor's Python workers went with it (none left running
    # in its folder).
    for kill in kills.values():
        orphans = [pid for pid in _pids() if (_cwd(pid) + os.sep).startswith(str(kill["work"]) + os.sep)]
        assert not orphans, (kill, [(pid, _cmdline(pid)) for pid in orphans])

    # Job 1 against the command line on the same files: every id once,
    # each row's answer the CLI's.
    t = time.monotonic()
    want = data / "want.parquet"
    subprocess.run([cli, "solve", "-q", str(data / "in"), "--format", "parquet", "--keep-columns", "-o", str(want)], check=True)
    timings["CLI solve"] = time.monotonic() - t
    t = time.monotonic()
    want = pq.read_table(want).sort_by("id")
    got = _read_spark_output(data / "solved")
    assert got.num_rows == want.num_rows == n, (got.num_rows, want.num_rows, n)
    got = got.sort_by("id")
    ids = got.column("id").to_numpy()
    assert np.array_equal(ids, np.arange(n)), f"ids missing: {np.setdiff1d(np.arange(n), ids)[:10]}, repeated: {ids[1:][ids[1:] == ids[:-1]][:10]}"
    for name in ("puzzle", "status", "solutions", "solution", "guesses"):
        differ = _mismatches(got, want, name, "id")
        assert differ == [], f"{name} differs from the command line's at ids {differ}"
    statuses = dict(zip(*np.unique(got.column("status").to_numpy(zero_copy_only=False), return_counts=True)))
    assert statuses == {"solved": n - 3, "malformed": 2, "invalid": 1}, statuses
    del got, want
    timings["solve output checked"] = time.monotonic() - t

    # Job 2 against `batchdoku generate` with the same seed and options.
    t = time.monotonic()
    lines = run_cli(cli, "generate", "-q", "-n", str(GENERATED), "--seed", str(SEED), "--minimal", "--with-solution").splitlines()
    timings["CLI generate"] = time.monotonic() - t
    t = time.monotonic()
    made = _read_spark_output(data / "generated").sort_by("index")
    index = made.column("index").to_numpy()
    assert np.array_equal(index, np.arange(GENERATED)), f"indexes missing: {np.setdiff1d(np.arange(GENERATED), index)[:10]}, repeated: {index[1:][index[1:] == index[:-1]][:10]}"
    assert len(lines) == GENERATED
    want_puzzles, want_solutions = zip(*(l.split(",") for l in lines))
    for name, values in (("puzzle", want_puzzles), ("solution", want_solutions)):
        differ = _mismatches(made, pa.table({"index": index, name: pa.array(values, pa.string())}), name, "index")
        assert differ == [], f"generated {name} differs from the command line's at indexes {differ}"
    timings["generate output checked"] = time.monotonic() - t
    for job, k in kills.items():
        print(
            f"\n{job}: killed executor {k['executor']} (pid {k['pid']}) with {k['ready']['completed']} of {k['ready']['tasks']} tasks done;"
            f" the driver lost task (attempt, TID) {k['lost']}; its log had not finished TIDs {k['unfinished']}"
            f" and had committed (partition, TID) {k['committed'][-2:]} last"
        )
