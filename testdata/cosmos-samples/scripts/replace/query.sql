SELECT VALUE {
    replaceSubstring: REPLACE("AdventureWorksLT", "LT", "LT2")
}