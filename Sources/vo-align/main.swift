import AudioTools

ToolMain.run(VoAlign.self)
