SELECT VALUE {
    truncateFloatingPoint: TRUNC(2.37),
    truncateNegative: TRUNC(-2.78),
    truncateInteger: TRUNC(2),
    truncateSmallNumber: TRUNC(0.0000714),
    truncatePi: TRUNC(PI())
}