import AudioTools

ToolMain.run(VoAlign.self, family: ToolCatalog.names)
