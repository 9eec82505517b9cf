SELECT VALUE {
    arctangent: ATAN(-45.01)
}