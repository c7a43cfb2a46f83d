import AudioTools

ToolMain.run(AudioProbe.self, family: ToolCatalog.names)
