import AudioTools

ToolMain.run(AudioProbe.self)
