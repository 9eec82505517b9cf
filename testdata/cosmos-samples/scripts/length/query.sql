SELECT VALUE {
    stringValue: LENGTH("AdventureWorks"),
    emptyString: LENGTH(""),
    nullValue: LENGTH(null),
    numberValue: LENGTH(0),
    arrayValue: LENGTH(["Adventure", "Works"])
}