"""Tests of the probe's bookkeeping with a real interpreter (no torch needed).
Run: python3 -m unittest test_checkup_probe (from this folder)."""
import csv
import json
import os
import tempfile
import unittest

import checkup_probe as P


class FakeClock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class StepTrackerTest(unittest.TestCase):
    def test_profiling_window_covers_steps_k_to_k_plus_n_minus_one(self):
        clock = FakeClock()
        tr = P.StepTracker(skip_steps=3, profile_steps=4, clock=clock)
        actions = []
        for _ in range(10):
            clock.t += 0.1
            actions.append(tr.end_step())
        # After 3 steps: start; steps 4..6 step(); after the 7th: stop; then nothing.
        self.assertEqual(actions, [None, None, "start", "step", "step", "step", "stop", None, None, None])
        self.assertTrue(tr.in_window(3) and tr.in_window(6))
        self.assertFalse(tr.in_window(2) or tr.in_window(7))

    def test_no_window_when_profiling_is_off(self):
        tr = P.StepTracker(skip_steps=0, profile_steps=0, clock=FakeClock())
        self.assertEqual([tr.end_step() for _ in range(3)], [None, None, None])

    def test_data_wait_is_charged_to_the_step_that_waited(self):
        clock = FakeClock()
        tr = P.StepTracker(0, 0, clock=clock)
        tr.begin_if_needed()
        clock.t += 0.30
        tr.add_data_wait(0.25)       # 250 ms of the 300 ms step went to the DataLoader
        tr.end_step()
        clock.t += 0.05
        tr.end_step()                # no data wait in the second step
        (s0, t0, wait0, launch0, _), (s1, t1, wait1, launch1, _) = tr.rows
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

    def test_steps_csv_has_the_corpus_columns(self):
        tr = P.StepTracker(0, 0, clock=FakeClock())
        tr.end_step()
        tr.rows[0][4] = 12.5
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "steps.csv")
            P.write_steps_csv(path, tr.rows)
            with open(path) as f:
                rows = list(csv.reader(f))
        self.assertEqual(rows[0], ["step", "t_start", "data_wait_ms", "launch_ms", "gpu_ms"])
        self.assertEqual(rows[1][0], "0")
        self.assertEqual(rows[1][4], "12.500")

    def test_progress_file_tells_steps_done_and_window_state(self):
        with tempfile.TemporaryDirectory() as d:
            P.write_progress(d, 42, True, False)
            with open(os.path.join(d, "progress.json")) as f:
                self.assertEqual(json.load(f), {"step": 42, "profiling": True, "trace_written": False})
            self.assertFalse(os.path.exists(os.path.join(d, "progress.json.tmp")))

    def test_torchrun_ranks_write_into_rank_folders(self):
        self.assertEqual(P.rank_dir("/out", {"WORLD_SIZE": "2", "RANK": "1"}), "/out/rank1")
        self.assertEqual(P.rank_dir("/out", {}), "/out")


if __name__ == "__main__":
    unittest.main()
