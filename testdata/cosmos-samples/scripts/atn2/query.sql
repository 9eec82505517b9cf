SELECT VALUE {
    arctangentInRadians: ATN2(35.175643, 129.44)
}