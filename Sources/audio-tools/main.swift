import AudioTools

ToolCatalog.multiCall()
