import AudioTools

LibraryFilter.main(family: ToolCatalog.names)
