import AudioToolsKit; AudioProbe.main()
