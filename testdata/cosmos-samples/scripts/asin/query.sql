SELECT VALUE {
    arcsine: ACOS(-1)
}