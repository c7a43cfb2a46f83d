import AudioTools

ToolMain.run(LufsMeasure.self, family: ToolCatalog.names)
