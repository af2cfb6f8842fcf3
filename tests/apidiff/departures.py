"""The differential API suite's stated departures: the answers of `dglsim serve` that differ from
kube-apiserver's by design, each with its reason. compare.py fails on a difference no entry here
covers; docs/api-departures.md's section "Measured by the differential suite" is generated from
this file and the last measurement.

DEPARTURES: (step name or a prefix of names ending in "*", reason). The first matching entry wins.
IDENTICAL_AT_LEAST: the measured share of identical interactions, rounded down; the suite fails
below it.
"""

IDENTICAL_AT_LEAST = 0.0

DEPARTURES = [
]


def departure_of(name):
    for pattern, reason in DEPARTURES:
        if pattern == name or (pattern.endswith("*") and name.startswith(pattern[:-1])):
            return pattern, reason
    return None, None
