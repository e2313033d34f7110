"""Tests of the probe's bookkeeping with a real interpreter (no torch needed).
Run: python3 -m unittest test_checkup_probe (from this folder)."""
import csv
import json
import os
import sys
import tempfile
import time
import tracemalloc
import unittest

import checkup_probe as P


class FakeClock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class FakeMark:
    """A CUDA event stand-in: completes when told, at a GPU time in ms."""

    def __init__(self, at_ms, done=True):
        self.at_ms = at_ms
        self.done = done

    def query(self):
        return self.done


def elapsed(a, b):
    return b.at_ms - a.at_ms


def read_csv(path):
    with open(path) as f:
        return list(csv.reader(f))


class StepTrackerTest(unittest.TestCase):
    def run_steps(self, tr, n):
        actions = []
        for _ in range(n):
            tr.end_step()
            actions.append(tr.window_action())
        return actions

    def test_profiling_window_covers_steps_k_to_k_plus_n_minus_one(self):
        tr = P.StepTracker(skip_steps=3, profile_steps=4, clock=FakeClock())
        # After 3 steps: start; steps 4..6 step(); after the 7th: stop; then nothing.
        self.assertEqual(self.run_steps(tr, 10), [None, None, "start", "step", "step", "step", "stop", None, None, None])
        self.assertTrue(tr.in_window(3) and tr.in_window(6))
        self.assertFalse(tr.in_window(2) or tr.in_window(7))

    def test_no_window_when_profiling_is_off(self):
        tr = P.StepTracker(skip_steps=0, profile_steps=0, clock=FakeClock())
        self.assertEqual(self.run_steps(tr, 3), [None, None, None])
        self.assertEqual(tr.watch_steps(), (0, 0))

    def test_watch_window_is_the_steps_before_the_profiled_ones_never_step_zero(self):
        self.assertEqual(P.StepTracker(10, 8).watch_steps(), (2, 10))
        self.assertEqual(P.StepTracker(4, 8).watch_steps(), (1, 4))
        first, end = P.StepTracker(0, 8).watch_steps()
        self.assertGreaterEqual(first, end)   # no room before the window: none
        tr = P.StepTracker(10, 8, clock=FakeClock())
        actions = []
        for _ in range(12):
            tr.end_step()
            actions.append(tr.watch_action())
        self.assertEqual(actions.index("start"), 1)   # after 2 completed steps
        self.assertEqual(actions.index("stop"), 9)    # after 10: the profiler takes over

    def test_data_wait_is_charged_to_the_step_that_waited(self):
        clock = FakeClock()
        tr = P.StepTracker(0, 0, clock=clock)
        tr.begin_if_needed()
        clock.t += 0.30
        tr.add_data_wait(0.25)       # 250 ms of the 300 ms step went to the DataLoader
        s0, t0, wait0, launch0, _ = tr.end_step()
        clock.t += 0.05
        s1, t1, wait1, launch1, _ = tr.end_step()   # no data wait in the second step
        self.assertEqual((s0, s1), (0, 1))
        self.assertAlmostEqual(wait0, 250.0)
        self.assertAlmostEqual(launch0, 50.0)
        self.assertAlmostEqual(wait1, 0.0)
        self.assertAlmostEqual(launch1, 50.0)
        self.assertAlmostEqual(t1 - t0, 0.30)

    def test_only_the_first_optimizer_ends_a_step(self):
        tr = P.StepTracker(0, 0, clock=FakeClock())
        self.assertTrue(tr.is_step_boundary(11))   # generator's optimizer, seen first
        self.assertFalse(tr.is_step_boundary(22))  # discriminator's
        self.assertTrue(tr.is_step_boundary(11))


class Training(unittest.TestCase):
    """The files of a process that trains (its first optimizer step was seen)."""

    def setUp(self):
        P.start_training()

    def tearDown(self):
        P.TRAINING = False


class StepsFileTest(Training):
    def test_rows_are_appended_in_order_once_their_gpu_time_is_known(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            tr = P.StepTracker(0, 0, clock=FakeClock())
            marks = [FakeMark(0.0), FakeMark(12.5), FakeMark(30.0, done=False)]
            for m in marks:
                f.add(tr.end_step(), m)
            f.pump()
            rows = read_csv(path)
            self.assertEqual(rows[0], P.STEPS_HEADER)
            # Step 0 has no earlier mark: no GPU time. Step 1 took 12.5 ms on the GPU; step
            # 2's end has not completed, so it waits.
            self.assertEqual([r[0] for r in rows[1:]], ["0", "1"])
            self.assertEqual(rows[1][4:], ["", ""])
            self.assertEqual(rows[2][4:], ["12.500", "1"])
            marks[2].done = True
            f.pump()
            f.close()
            rows = read_csv(path)
            self.assertEqual(rows[3][0], "2")
            self.assertEqual(rows[3][4], "17.500")

    def test_a_row_waits_at_most_max_pending_steps(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed, max_pending=3)
            tr = P.StepTracker(0, 0, clock=FakeClock())
            for i in range(6):
                f.add(tr.end_step(), FakeMark(float(i), done=False))
            f.pump()
            f.close()
            # Three rows stay; the older ones are written without GPU time.
            self.assertEqual(len(read_csv(path)) - 1, 3)
            self.assertEqual(len(f.pending), 3)

    def test_final_pump_writes_everything(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            tr = P.StepTracker(0, 0, clock=FakeClock())
            for i in range(4):
                f.add(tr.end_step(), FakeMark(i * 10.0, done=False))
            f.pump(final=True)
            f.close()
            rows = read_csv(path)
            self.assertEqual([r[4] for r in rows[1:]], ["", "10.000", "10.000", "10.000"])

    def run_spans(self, f, sched, clock, step_ms, steps, gpu_per_step_ms):
        """Steps of `step_ms` wall time each, marked as the probe marks them; the GPU
        reaches a mark `gpu_per_step_ms` per step after the previous one."""
        gpu = 0.0
        tr = P.StepTracker(0, 0, clock=clock)
        for _ in range(steps):
            clock.t += step_ms / 1e3
            gpu += gpu_per_step_ms
            f.add(tr.end_step(), sched.mark_if_due(clock.t, lambda: FakeMark(gpu)))
        return tr

    def test_short_steps_are_timed_on_the_gpu_in_spans(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            # Steps of 2^-10 s and a span of 20 of them: exact in binary floating point.
            tick_ms = 1e3 * 2 ** -10
            self.run_spans(f, P.MarkSchedule(span_s=20 * 2 ** -10), FakeClock(), tick_ms, 101, 0.9)
            f.pump()
            f.close()
            rows = read_csv(path)[1:]
        timed = [(int(r[0]), float(r[4]), int(r[5])) for r in rows if r[4]]
        # Step 0 is marked (the first mark), then every 20th step, each row carrying its
        # span's GPU time: 20 steps of 0.9 ms.
        self.assertEqual([t[0] for t in timed], [20, 40, 60, 80, 100])
        for step, gpu_ms, n in timed:
            self.assertEqual(n, 20)
            self.assertAlmostEqual(gpu_ms, 18.0, places=6)
        self.assertEqual(len(rows), 101)
        self.assertTrue(all(r[4] == "" and r[5] == "" for r in rows if int(r[0]) % 20))

    def test_steps_longer_than_the_span_are_each_timed(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            self.run_spans(f, P.MarkSchedule(span_s=0.02), FakeClock(), 25.0, 10, 24.0)
            f.pump()
            f.close()
            rows = read_csv(path)[1:]
        self.assertEqual([r[4:] for r in rows[1:]], [["24.000", "1"]] * 9)

    def test_a_span_never_covers_more_than_max_steps(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            self.run_spans(f, P.MarkSchedule(span_s=0.02, max_steps=8), FakeClock(), 0.01, 33, 0.01)
            f.pump()
            f.close()
            rows = read_csv(path)[1:]
        self.assertEqual([int(r[5]) for r in rows if r[5]], [8, 8, 8, 8])

    def test_an_epoch_start_ends_the_span_and_its_first_two_steps_are_timed_alone(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            sched = P.MarkSchedule(span_s=0.02)
            clock = FakeClock()
            tr = self.run_spans(f, sched, clock, 1.0, 11, 1.0)
            # A new epoch's iterator is made after step 10: the span 1..10 ends now (step 0's
            # mark was at 1 ms on the GPU, its work queued up to 11 ms), and the next two
            # steps are marked alone.
            f.end_span(lambda: FakeMark(11.0))
            sched.force(2)
            f.end_span(lambda: self.fail("no open steps: no mark"))
            for gpu in (60.0, 61.0, 62.0):
                clock.t += 0.001
                f.add(tr.end_step(), sched.mark_if_due(clock.t, lambda: FakeMark(gpu)))
            f.pump(final=True)
            f.close()
            rows = read_csv(path)[1:]
        timed = {int(r[0]): (r[4], r[5]) for r in rows if r[4]}
        self.assertEqual(timed, {10: ("10.000", "10"), 11: ("49.000", "1"), 12: ("1.000", "1")})
        # The step after them is in an open span at the end: written, without GPU time.
        self.assertEqual(rows[-1][0], "13")
        self.assertEqual(len(rows), 14)

    def test_bookkeeping_stays_flat_over_100000_steps(self):
        """Memory and per-step cost of the step bookkeeping do not grow with the run."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            f = P.StepsFile(path, elapsed_ms=elapsed)
            tr = P.StepTracker(10, 8, clock=time.time)
            sched = P.MarkSchedule()
            tracemalloc.start()
            seconds = []
            memory = []
            for block in range(10):
                t0 = time.perf_counter()
                for i in range(10_000):
                    row = tr.end_step()
                    f.add(row, sched.mark_if_due(tr.t_start, lambda: FakeMark(float(i))))
                    tr.window_action()
                    if tr.step % 50 == 0:
                        f.pump()
                seconds.append(time.perf_counter() - t0)
                memory.append(tracemalloc.get_traced_memory()[0])
            tracemalloc.stop()
            f.pump(final=True)
            f.close()
            with open(path) as fh:
                self.assertEqual(sum(1 for _ in fh), 100_001)
        # The last block holds no more than the first (a few pending rows), and is not
        # slower than twice the fastest block (timing noise on a busy machine).
        self.assertLess(memory[-1], memory[1] + 64 * 1024, memory)
        self.assertLess(min(seconds[5:]), 2 * min(seconds[:5]) + 0.05, seconds)


class CsvLogTest(Training):
    def test_each_row_is_on_disk_when_written(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.csv")
            log = P.CsvLog(path, P.EVENTS_HEADER)
            log.write([40, "1.000000", "epoch_start", "loader0 workers=2 forked", ""])
            # Not closed: a run killed now keeps the row.
            self.assertEqual(read_csv(path)[1][2], "epoch_start")
            log.close()

    def test_rows_before_the_first_step_wait_for_it(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.csv")
            P.TRAINING = False
            log = P.CsvLog(path, P.EVENTS_HEADER)
            log.write([0, "1.000000", "epoch_start", "loader0 workers=2 forked", ""])
            self.assertFalse(os.path.exists(path))
            P.start_training()
            log.write([30, "2.000000", "checkpoint", "torch.save", "812.000"])
            log.close()
            self.assertEqual([r[2] for r in read_csv(path)[1:]], ["epoch_start", "checkpoint"])

    def test_rows_before_the_first_step_are_kept_when_no_row_follows(self):
        """A model compiled once before its first step, with nothing logged after."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.csv")
            P.TRAINING = False
            log = P.CsvLog(path, P.EVENTS_HEADER)
            log.write([0, "1.000000", "compile", "trigger=dynamo id=0/0", "21834.240"])
            P.start_training()
            log.close()
            self.assertEqual([r[2] for r in read_csv(path)[1:]], ["compile"])

    def test_a_checkpoint_says_the_bytes_it_wrote_and_the_thread_that_wrote_them(self):
        import io
        import threading
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "last.pt")
            with open(path, "wb") as f:
                f.write(b"x" * 4096)
            self.assertEqual(P.save_detail("torch.save", ({}, path), {}), "torch.save bytes=4096")
            # A file object: what it has been written so far; a target it cannot size: nothing.
            buffer = io.BytesIO(b"y" * 100)
            buffer.seek(0, 2)
            self.assertEqual(P.save_detail("torch.save", ({},), {"f": buffer}), "torch.save bytes=100")
            self.assertEqual(P.save_detail("torch.save", ({}, os.path.join(d, "none.pt")), {}), "torch.save")
            # Written from another thread: named as the probe's hot lines name it.
            seen = []
            writer = threading.Thread(target=lambda: seen.append(P.save_detail("torch.save", ({}, path), {})),
                                      name="Thread-3 (save checkpoint)")
            writer.start()
            writer.join()
            self.assertEqual(seen, ["torch.save bytes=4096 thread=save_checkpoint"])

    def test_a_process_that_never_trains_writes_nothing(self):
        """The torchrun launcher, a spawned DataLoader worker: they import the probe too."""
        with tempfile.TemporaryDirectory() as d:
            P.TRAINING = False
            log = P.CsvLog(os.path.join(d, "events.csv"), P.EVENTS_HEADER)
            log.write([3, "1.000000", "gc", "collected=10", "7.000"])
            steps = P.StepsFile(os.path.join(d, "steps.csv"))
            steps.pump(final=True)
            self.assertEqual(os.listdir(d), [])

    def test_rows_after_close_are_dropped_not_truncating(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.csv")
            log = P.CsvLog(path, P.EVENTS_HEADER)
            log.write([30, "2.000000", "checkpoint", "torch.save", "812.000"])
            log.close()
            log.write([80, "3.000000", "gc", "collected=116", "146.541"])   # at shutdown
            self.assertEqual([r[2] for r in read_csv(path)[1:]], ["checkpoint"])

    def test_nothing_is_created_without_rows(self):
        with tempfile.TemporaryDirectory() as d:
            P.CsvLog(os.path.join(d, "events.csv"), P.EVENTS_HEADER).close()
            self.assertEqual(os.listdir(d), [])


class SyncSitesTest(unittest.TestCase):
    def test_summary_counts_per_step_and_names_the_busiest_lines(self):
        s = P.SyncSites(2, 10)
        for _ in range(8):
            for _ in range(50):
                s.record(("/w/train.py", 88, "train"), "implicit")
            s.record(("/w/train.py", 95, "train"), "synchronize")
        code = {("/w/train.py", 88): "    gn += p.grad.norm().item()\n"}
        out = s.summary(8, code_of=lambda f, l: code.get((f, l), ""))
        self.assertEqual(out["steps"], [2, 9])
        self.assertEqual(out["total"], 408)
        self.assertEqual(out["per_step"], 51.0)
        top = out["sites"][0]
        self.assertEqual((top["file"], top["line"], top["count"]), ("/w/train.py", 88, 400))
        self.assertEqual(top["code"], "gn += p.grad.norm().item()")
        self.assertEqual(out["sites"][1]["kinds"], {"synchronize": 8})

    def test_no_steps_watched_gives_no_rate(self):
        out = P.SyncSites(2, 10).summary(0)
        self.assertEqual((out["steps"], out["per_step"], out["sites"]), (None, None, []))

    def test_the_training_frame_is_found_past_library_frames(self):
        def library():
            return P.user_frame(sys._getframe(0), skip_dirs=(os.path.abspath(__file__),))

        # Every frame of this file is "library": the answer is outside it (unittest's).
        site = library()
        self.assertIsNotNone(site)
        self.assertNotEqual(site[0], os.path.abspath(__file__))
        self.assertEqual(P.user_frame(sys._getframe(0), skip_dirs=("",)), None)

    def test_a_counted_call_is_made_and_counted_at_the_line_that_made_it(self):
        made = []
        sites = P.SyncSites(0, None)
        counted = P.counted_by_line(lambda *a, **k: made.append((a, k)) or len(made), sites,
                                    "gc_collect", skip_dirs=(os.path.dirname(P.__file__) + os.sep + "x",))
        line = sys._getframe(0).f_lineno + 1
        self.assertEqual([counted(2, generation=1), counted()], [1, 2])
        self.assertEqual(made, [((2,), {"generation": 1}), ((), {})])
        site = (os.path.abspath(__file__), line, "test_a_counted_call_is_made_and_counted_at_the_line_that_made_it")
        self.assertEqual((sites.total, dict(sites.kinds[site])), (2, {"gc_collect": 2}))


class RecompileLogTest(unittest.TestCase):
    # As dynamo writes them (torch/_dynamo/guards.py, convert_frame.py).
    RECOMPILING = ("Recompiling function forward in /w/lab/classifier.py:41\n"
                   "    triggered by the following guard failure(s):\n"
                   "    - 0/3: tensor 'tokens' size mismatch at index 1. expected 96, actual 136\n"
                   "    - 0/2: tensor 'tokens' size mismatch at index 1. expected 120, actual 136")
    LIMIT = ("torch._dynamo hit config.recompile_limit (8)\n"
             "   function: 'forward' (/w/lab/classifier.py:41)\n"
             "   last reason: 0/7: tensor 'tokens' size mismatch at index 1. expected 64, actual 88\n"
             'To log all recompilation reasons, use TORCH_LOGS="recompiles".\n'
             "To diagnose recompilation issues, see https://pytorch.org/docs/main/torch.compiler_troubleshooting.html")

    def test_a_recompilation_is_read_as_its_function_and_first_failed_guard(self):
        self.assertEqual(P.recompile_of(self.RECOMPILING),
                         ("forward", "/w/lab/classifier.py", 41,
                          "tensor 'tokens' size mismatch at index 1. expected 96, actual 136"))
        self.assertIsNone(P.recompile_of("torchdynamo start compiling forward"))

    def test_the_recompile_limit_is_read_with_its_function_and_last_reason(self):
        self.assertEqual(P.recompile_limit_of(self.LIMIT),
                         ("recompile_limit", 8, "forward", "/w/lab/classifier.py", 41,
                          "tensor 'tokens' size mismatch at index 1. expected 64, actual 88"))
        self.assertIsNone(P.recompile_limit_of(self.RECOMPILING))


class FilesTest(unittest.TestCase):
    def test_progress_file_tells_steps_done_and_window_state(self):
        with tempfile.TemporaryDirectory() as d:
            P.write_progress(d, 42, True, False)
            with open(os.path.join(d, "progress.json")) as f:
                self.assertEqual(json.load(f), {"profiling": True, "step": 42, "trace_written": False})
            self.assertFalse(os.path.exists(os.path.join(d, "progress.json.tmp")))

    def test_status_fields_accumulate(self):
        with tempfile.TemporaryDirectory() as d:
            P.status(d, ok=True, torch="2.11.0")
            P.status(d, trace=True)
            with open(os.path.join(d, "probe_status.json")) as f:
                self.assertEqual(json.load(f), {"ok": True, "torch": "2.11.0", "trace": True})

    def test_torchrun_ranks_write_into_rank_folders(self):
        self.assertEqual(P.rank_dir("/out", {"WORLD_SIZE": "2", "RANK": "1"}), "/out/rank1")
        self.assertEqual(P.rank_dir("/out", {}), "/out")

    def test_a_rank_knows_its_node_from_torchrun_or_slurm(self):
        torchrun = {"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4",
                    "GROUP_RANK": "1", "SLURM_PROCID": "1", "SLURM_NODEID": "1"}
        me = P.identity(torchrun)
        self.assertEqual((me["rank"], me["world_size"], me["local_rank"], me["node_rank"]), (5, 8, 1, 1))
        self.assertEqual(P.rank_dir("/out", torchrun), "/out/rank5")
        # srun starting one task per rank: Slurm's own variables.
        slurm = {"SLURM_PROCID": "6", "SLURM_NTASKS": "8", "SLURM_LOCALID": "2",
                 "SLURM_NODEID": "1", "SLURM_NTASKS_PER_NODE": "4"}
        me = P.identity(slurm)
        self.assertEqual((me["rank"], me["world_size"], me["local_rank"], me["node_rank"],
                          me["local_world_size"]), (6, 8, 2, 1, 4))
        self.assertEqual(P.rank_dir("/out", slurm), "/out/rank6")
        self.assertEqual(P.identity({})["node_rank"], None)


class BlockingStore:
    """The job's key-value store as torch's TCPStore behaves: get waits for the key."""

    def __init__(self):
        import threading
        self.cond = threading.Condition()
        self.data = {}

    def set(self, key, value):
        with self.cond:
            self.data[key] = str(value).encode()
            self.cond.notify_all()

    def get(self, key):
        with self.cond:
            if not self.cond.wait_for(lambda: key in self.data, timeout=10):
                raise TimeoutError(key)
            return self.data[key]

    def add(self, key, n):
        with self.cond:
            value = int(self.data.get(key, b"0")) + n
            self.data[key] = str(value).encode()
            return value


class ClockExchangeTest(unittest.TestCase):
    def test_each_rank_learns_its_offset_to_rank_0(self):
        import threading
        store = BlockingStore()
        # Rank 1's clock is 2.5 s ahead of rank 0's, rank 2's 0.75 s behind.
        skews = {0: 0.0, 1: 2.5, 2: -0.75}
        results = {}

        def rank(r):
            clock = lambda: time.time() + skews[r]
            results[r] = P.clock_exchange(store, r, 3, "checkup/clock/0/", clock=clock)

        threads = [threading.Thread(target=rank, args=(r,)) for r in (2, 0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
        self.assertEqual(results[0], {"clock_offset_s": 0.0, "clock_rtt_s": 0.0})
        for r in (1, 2):
            # rank 0's time = this rank's + offset; off by at most half the round trip.
            self.assertAlmostEqual(results[r]["clock_offset_s"], -skews[r],
                                   delta=results[r]["clock_rtt_s"] / 2 + 1e-6)
            self.assertLess(results[r]["clock_rtt_s"], 0.05)


class TeardownTest(unittest.TestCase):
    def test_cupti_is_finalised_after_the_window_unless_the_user_said_otherwise(self):
        self.assertEqual(P.teardown_cupti_after_window({}, "12.8", False), "1")
        self.assertEqual(P.teardown_cupti_after_window({}, "13.0", True), "1")
        self.assertIsNone(P.teardown_cupti_after_window({"TEARDOWN_CUPTI": "0"}, "12.8", False))

    def test_cuda_graphs_before_cuda_12_6_keep_cupti(self):
        self.assertIsNone(P.teardown_cupti_after_window({}, "12.4", True))
        self.assertEqual(P.teardown_cupti_after_window({}, "12.4", False), "1")
        self.assertEqual(P.teardown_cupti_after_window({}, None, False), "1")


class InstallTest(unittest.TestCase):
    """`checkup_session.install()`, the probe's entry point, without torch."""

    def test_nothing_attaches_unless_the_agent_asked(self):
        import checkup_session as S
        self.assertIsNone(S.install(env={}))

    def test_a_process_without_torch_runs_untouched_and_the_status_says_why(self):
        import checkup_session as S
        saved = sys.modules.get("torch")
        sys.modules["torch"] = None  # `import torch` raises ImportError
        try:
            with tempfile.TemporaryDirectory() as d:
                self.assertIsNone(S.install(env={"CHECKUP_OUT": d}))
                with open(os.path.join(d, "probe_status.json")) as f:
                    status = json.load(f)
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        self.assertFalse(status["ok"])
        self.assertIn("torch could not be imported", status["error"])

    def test_the_bookkeeping_imports_neither_the_session_nor_the_observers(self):
        # The session sits above both modules; neither may import it, nor the bookkeeping
        # the observers (the import loop this layout removed).
        here = os.path.dirname(os.path.abspath(P.__file__))
        for name, banned in (("checkup_probe.py", ("checkup_session", "checkup_training")),
                             ("checkup_training.py", ("checkup_session",)),
                             ("checkup_stacks.py", ("checkup_session", "checkup_training", "torch"))):
            with open(os.path.join(here, name)) as f:
                source = f.read()
            for module in banned:
                self.assertNotIn("import " + module, source, name)


def spin_here(stop):
    """Burns CPU on one known line until told to stop."""
    n = 0
    while not stop.is_set():
        n += sum(map(abs, range(-2000, 2000)))  # the hot line
    return n


HOT_LINE = spin_here.__code__.co_firstlineno + 4


class HotLinesTest(unittest.TestCase):
    """checkup_stacks: the sampler of the host's hot lines, on real threads."""

    def sample_for(self, seconds, **threads):
        import checkup_stacks as S
        import threading
        stop = threading.Event()
        started = [threading.Thread(target=target, args=(stop,), name=name, daemon=True)
                   for name, target in threads.items()]
        for t in started:
            t.start()
        # The test file lives in the probe's folder, whose frames the sampler credits to no
        # line: here the probe is elsewhere.
        sampler = S.Sampler(0.005, probe_dir="/no/probe/here")
        sampler.start()
        time.sleep(seconds)
        sampler.stop()
        stop.set()
        for t in started:
            t.join()
        return S.merge([sampler.snapshot()])

    def test_the_thread_that_burns_cpu_is_named_at_its_line_and_a_waiting_one_gets_none(self):
        def wait_here(stop):
            stop.wait()
        lines = self.sample_for(0.6, reporter=spin_here, idle=wait_here)
        by_name = {t["name"]: t for t in lines["threads"]}
        reporter = by_name["reporter"]
        self.assertEqual(reporter["role"], "thread")
        top = reporter["lines"][0]
        self.assertEqual((top["line"], top["function"]), (HOT_LINE, "spin_here"))
        self.assertIn("sum(map(abs", top["code"])
        self.assertGreater(top["cpu_s"], 0.6 * reporter["cpu_s"])
        self.assertGreater(reporter["cpu_s"], 0.05)
        # A thread blocked on an event uses no CPU, whatever line it waits on.
        self.assertLess(by_name["idle"]["cpu_s"], 0.02)
        # The thread that started the sampler is the training's.
        self.assertEqual(lines["threads"][0]["role"], "training")
        self.assertGreater(lines["wakeups"], 30)

    def test_a_library_function_under_the_users_line_is_kept_beside_it(self):
        import checkup_stacks as S
        import json as json_module

        def encode(stop):
            # Indented, json encodes in Python (encoder.py), not in one C call that holds the
            # interpreter: a sampler inside the process then sees the library's frames, not
            # only the loop's `is_set` between two calls.
            while not stop.is_set():
                json_module.dumps(list(range(2000)), indent=1)
        lines = self.sample_for(0.4, encoder=encode)
        top = {t["name"]: t for t in lines["threads"]}["encoder"]["lines"][0]
        self.assertEqual(top["function"], "encode")
        self.assertTrue(top["inside"].startswith(("__init__.py:", "encoder.py:")), top["inside"])
        self.assertTrue(S.library_dirs())

    def test_workers_merge_into_one_role_with_their_process_count(self):
        import checkup_stacks as S
        worker = {"interval_ms": 20, "seconds": 3.0, "wakeups": 150, "sampler_cpu_s": 0.004, "pid": 11,
                  "threads": [{"role": "loader_worker", "name": "", "cpu_s": 2.0, "samples": 150,
                               "lines": [["/w/dataset.py", 14, "__getitem__", "", 1.5, 100],
                                         ["/w/dataset.py", 20, "__getitem__", "Image.py:resize", 0.5, 50]]}]}
        other = dict(worker, pid=12, threads=[dict(worker["threads"][0], cpu_s=1.0,
                                                   lines=[["/w/dataset.py", 14, "__getitem__", "", 1.0, 150]])])
        main = {"interval_ms": 20, "seconds": 3.1, "wakeups": 155, "sampler_cpu_s": 0.005, "pid": 10,
                "threads": [{"role": "training", "name": "", "cpu_s": 0.3, "samples": 155,
                             "lines": [["/w/train.py", 40, "main", "", 0.3, 155]]}]}
        merged = S.merge([main, worker, other], code_of=lambda f, l: "os.listdir(self.root)" if l == 14 else "")
        self.assertEqual([t["role"] for t in merged["threads"]], ["training", "loader_worker"])
        workers = merged["threads"][1]
        self.assertEqual((workers["processes"], workers["cpu_s"]), (2, 3.0))
        self.assertEqual(workers["lines"][0], {"file": "/w/dataset.py", "line": 14, "function": "__getitem__",
                                               "inside": "", "code": "os.listdir(self.root)",
                                               "cpu_s": 2.5, "samples": 250})
        self.assertEqual(merged["seconds"], 3.1)
        self.assertEqual(merged["sampler_cpu_s"], 0.013)

    def test_the_probes_own_work_is_not_credited_to_the_training(self):
        import checkup_stacks as S
        line_of = S.LineOf(S.library_dirs())
        # A frame of the probe's own module (its step hook) under the caller's line.
        def frame_in(path):
            scope = {}
            exec(compile("import sys\nf = sys._getframe()", path, "exec"), scope)
            return scope["f"]
        self.assertIs(line_of(frame_in(S.__file__))[0], S.PROBE)
        where, _ = line_of(frame_in("/w/train.py"))
        self.assertEqual(where[:2], ("/w/train.py", 2))

    def test_thread_names_lose_the_number_python_gives_them(self):
        import checkup_stacks as S
        self.assertEqual(S.thread_name("Thread-7 (_pin_memory_loop)"), "_pin_memory_loop")
        self.assertEqual(S.thread_name("Thread-12"), "Thread")
        self.assertEqual(S.thread_name("reporter"), "reporter")

    def test_lines_past_the_bound_are_counted_as_other(self):
        import checkup_stacks as S
        t = S.ThreadLines("training", "")
        for i in range(S.MAX_LINES + 500):
            t.add(("gen.py", i, "f"), "", 0.001)
        self.assertEqual(len(t.lines), S.MAX_LINES + 1)
        self.assertEqual(t.samples, S.MAX_LINES + 500)
        self.assertAlmostEqual(t.cpu_s, (S.MAX_LINES + 500) * 0.001)

    def test_the_interval_comes_from_the_environment_and_zero_turns_sampling_off(self):
        import checkup_stacks as S
        self.assertEqual(S.interval_from({}), 0.05)
        self.assertEqual(S.interval_from({"CHECKUP_HOT_LINES_MS": "50"}), 0.05)
        self.assertIsNone(S.interval_from({"CHECKUP_HOT_LINES_MS": "0"}))
        self.assertIsNone(S.interval_from({"CHECKUP_HOT_LINES_MS": "often"}))

    def test_worker_snapshots_are_written_atomically_and_read_back(self):
        import checkup_stacks as S
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, ".hot_lines")
            S.write_snapshot(folder, {"threads": [], "pid": os.getpid()})
            with open(os.path.join(folder, "half.json"), "w") as f:
                f.write("{\"threads\": [")
            self.assertEqual(S.read_snapshots(folder), [{"threads": [], "pid": os.getpid()}])
            self.assertEqual(S.read_snapshots(os.path.join(d, "none")), [])


if __name__ == "__main__":
    unittest.main()


class FakeCuda:
    """torch.cuda as the sync watch uses it; a sync emits torch's warning from C++ (here:
    warnings.warn from the caller's frame)."""

    def __init__(self):
        self.mode = 0
        self.synchronized = 0

    def is_initialized(self):
        return True

    def get_sync_debug_mode(self):
        return self.mode

    def set_sync_debug_mode(self, mode):
        self.mode = mode

    def synchronize(self):
        self.synchronized += 1

    def empty_cache(self):
        self.emptied = getattr(self, "emptied", 0) + 1


class FakeTorch:
    __file__ = "/nonexistent/torch/__init__.py"

    def __init__(self):
        self.cuda = FakeCuda()


def item(torch):
    """What `.item()` does with sync debug mode on: torch's C++ warning reaches Python from
    the frame that called it (here the caller's, as `.item()` has no Python frame)."""
    if torch.cuda.mode:
        import warnings
        warnings.warn("called a synchronizing CUDA operation", UserWarning)


class ProfilerWindowTest(unittest.TestCase):
    def test_a_training_that_profiles_itself_keeps_its_profiler_and_the_run_says_why(self):
        import types
        import checkup_session
        torch = FakeTorch()
        torch.autograd = types.SimpleNamespace(profiler=types.SimpleNamespace(_is_profiler_enabled=True))
        with tempfile.TemporaryDirectory() as d:
            session = checkup_session.Session(torch, d, env={})
            session.start_profiler()
            self.assertIsNone(session.prof)
            self.assertIn("trace_skipped_training_profiler", session.training.model_notes)
            with open(os.path.join(d, "probe_status.json")) as f:
                status = json.load(f)
        self.assertEqual((status["trace"], status["trace_skipped"]), (False, "training_profiler"))


class SyncWatchTest(unittest.TestCase):
    def observer(self, torch):
        import checkup_training as T
        tracker = P.StepTracker(10, 8, clock=FakeClock())
        with tempfile.TemporaryDirectory() as d:
            obs = T.Observer(torch, tracker, None, None, d)
        # The probe's folder holds this test too: skip the probe's own files, not the folder.
        here = os.path.dirname(os.path.abspath(T.__file__))
        obs.skip_dirs = tuple(d for d in obs.skip_dirs if d != here) + (
            os.path.join(here, "checkup_training.py"), os.path.join(here, "checkup_probe.py"))
        return obs

    def test_each_sync_is_traced_to_its_line_and_never_printed(self):
        import io
        import contextlib
        import warnings
        torch = FakeTorch()
        obs = self.observer(torch)
        shown = warnings.showwarning
        filters = list(warnings.filters)
        obs.tracker.step = 2
        obs.start_watch()
        self.assertEqual(torch.cuda.mode, 1)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            for _ in range(3):
                warnings.warn("called a synchronizing CUDA operation", UserWarning); line = sys._getframe().f_lineno  # noqa: E702
            torch.cuda.synchronize()
        obs.tracker.step = 3
        obs.stop_watch()
        self.assertEqual(err.getvalue(), "")
        # Everything the watch changed is put back.
        self.assertEqual(torch.cuda.mode, 0)
        self.assertIs(warnings.showwarning, shown)
        self.assertEqual(warnings.filters, filters)
        self.assertEqual(torch.cuda.synchronized, 1)
        s = obs.syncs.summary(1)
        self.assertEqual((s["total"], s["per_step"]), (4, 4.0))
        top = s["sites"][0]
        self.assertEqual((os.path.basename(top["file"]), top["line"], top["count"]),
                         ("test_checkup_probe.py", line, 3))
        self.assertEqual(s["sites"][1]["kinds"], {"synchronize": 1})

    def test_empty_cache_calls_are_counted_by_line_to_the_end_of_the_run(self):
        torch = FakeTorch()
        obs = self.observer(torch)
        obs.tracker.step = 2
        obs.start_watch()
        for _ in range(2):
            torch.cuda.empty_cache(); line = sys._getframe().f_lineno  # noqa: E702
        obs.tracker.step = 3
        obs.stop_watch()
        # Still counted after the window: a call every N steps falls outside 8 steps.
        obs.tracker.step = 5
        torch.cuda.empty_cache()
        obs.tracker.step = 6
        self.assertEqual(torch.cuda.emptied, 3)
        s = obs.cache_empties.summary(obs.tracker.step - obs.cache_empties_from)
        self.assertEqual((s["steps"], s["total"], s["per_step"]), ([2, 5], 3, 0.75))
        top = s["sites"][0]
        self.assertEqual((os.path.basename(top["file"]), top["line"], top["count"]),
                         ("test_checkup_probe.py", line, 2))
        self.assertEqual(top["kinds"], {"empty_cache": 2})

    def test_a_run_whose_warnings_are_errors_is_not_watched(self):
        import warnings
        torch = FakeTorch()
        obs = self.observer(torch)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            obs.start_watch()
            self.assertEqual(torch.cuda.mode, 0)
            item(torch)   # nothing raised: the mode was left off, so torch does not warn
            obs.stop_watch()
        self.assertEqual(obs.sync_note, "syncs_not_watched_warnings_are_errors")
