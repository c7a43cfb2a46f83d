import AudioToolsKit; LufsMeasure.main()
