SELECT VALUE {
    lowercase: LOWER("adventureworks"),
    uppercase: LOWER("ADVENTUREWORKS"),
    camelCase: LOWER("adventureWorks"),
    pascalCase: LOWER("AdventureWorks"),
    upperSnakeCase: LOWER("ADVENTURE_WORKS")
}