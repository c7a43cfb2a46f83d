import AudioTools

LibraryFilter.main()
