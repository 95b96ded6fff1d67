from spyglass.cli import main

main()
