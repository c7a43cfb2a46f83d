import AudioToolsKit; LibraryFilter.main()
