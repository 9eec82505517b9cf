SELECT VALUE {
    lowercase: UPPER("adventureworks"),
    uppercase: UPPER("ADVENTUREWORKS"),
    camelCase: UPPER("adventureWorks"),
    pascalCase: UPPER("AdventureWorks"),
    upperSnakeCase: UPPER("ADVENTURE_WORKS")
}