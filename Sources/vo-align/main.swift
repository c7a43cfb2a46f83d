import AudioToolsKit; VoAlign.main()
