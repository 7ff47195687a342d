"""What a numpy check starts from: the binaries (MOEKIT_BIN), a fresh
seed (MOEKIT_SEED replays one), its generator, and one way to fail that
names the check and the seed."""
import os
import sys
import time

import numpy as np


def start(what):
    """(BIN, seed, rng, fail) for the check called `what`."""
    seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))

    def fail(msg):
        sys.exit("%s failed (seed %d): %s" % (what, seed, msg))

    return os.environ["MOEKIT_BIN"], seed, np.random.default_rng(seed), fail
