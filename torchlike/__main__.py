"""`python -m torchlike script.py [args...]`: run a PyTorch script on torchlike."""
from ._runner import main_exit

main_exit()
