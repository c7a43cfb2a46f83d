import AudioToolsKit; ToolCatalog.multiCall()
