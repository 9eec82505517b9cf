SELECT VALUE {
    length: ARRAY_LENGTH([70, 86, 92, 99, 85, 90, 82]),
    emptyLength: ARRAY_LENGTH([]),
    nullLength: ARRAY_LENGTH(null)
}