SELECT VALUE {
    constructMinArguments: DateTimeFromParts(2017, 4, 20),
    constructMinEquivalent: DateTimeFromParts(2017, 4, 20, 0, 0, 0, 0),
    constructAllArguments: DateTimeFromParts(2017, 4, 20, 13, 15, 20, 3456789),
    constructPartialArguments: DateTimeFromParts(2017, 4, 20, 13, 15),
    constructInvalidArguments: DateTimeFromParts(-2000, -1, -1)
}