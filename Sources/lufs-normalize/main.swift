import AudioToolsKit; LufsNormalize.main()
