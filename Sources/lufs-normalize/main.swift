import AudioTools

ToolMain.run(LufsNormalize.self, family: ToolCatalog.names)
