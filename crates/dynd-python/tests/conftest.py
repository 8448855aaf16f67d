"""Shared pieces of the dynd Python tests."""

import numpy as np


def data_pointer(a):
    """The address of a NumPy array's first element."""
    return np.asarray(a).__array_interface__["data"][0]
