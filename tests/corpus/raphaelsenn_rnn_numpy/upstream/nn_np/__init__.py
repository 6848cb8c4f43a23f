from nn_np.rnn_np import RNN_1FC_ALL
from nn_np.rnn_np import RNN_1FC